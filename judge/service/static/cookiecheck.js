// Inside an LMS's frame, a browser that refuses the tool's cookies would fail the launch: check that a cookie
// can be set here first; if so, go on with the launch, else offer to open it in a new window.
"use strict";
(function () {
  const box = document.getElementById("cookie-check");
  const secure = box.dataset.protocol === "https";
  document.cookie = "lti1p3_test_cookie=1; path=/" + (secure ? "; SameSite=None; Secure; Partitioned" : "");
  if (document.cookie.indexOf("lti1p3_test_cookie") !== -1) {
    document.cookie = "lti1p3_test_cookie=1; path=/; expires=Thu, 01 Jan 1970 00:00:01 GMT" +
      (secure ? "; SameSite=None; Secure; Partitioned" : "");
    window.location.replace(box.dataset.url);
  } else {
    document.getElementById("cookie-check-loading").hidden = true;
    document.getElementById("cookie-check-warning").hidden = false;
  }
})();
