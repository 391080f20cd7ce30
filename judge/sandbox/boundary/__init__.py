"""The boundary: everything that crosses between the judge and a sandboxed run, and nothing that runs it.

What a run asks and reports (``contract``), the socket's framing (``messages``), the byte layout results cross
in (``wire``, ``outputs``), the sealed memory files inputs arrive in (``memfd``), the shared result buffer
(``result_buffer``) and the page the harness notes its progress on (``progress``).  Both sides import these
modules, the judge and every process of the chain, so they import nothing of the sandbox beyond this room:
a change here is a change to the contract, read from both ends.
"""
