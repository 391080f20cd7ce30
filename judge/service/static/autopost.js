// The Deep Linking response: post the signed JWT back to the platform at once (the form's button does it
// without JavaScript).
document.getElementById("deep-link-return").submit();
