"""The controller host: a backend controller in a child process that can crash, hang or leak nothing.

`process.HostProcess` (parent side) launches `child` (serves calls over a pipe, `wire` format), in its own
process group, orphan-proof (`orphans`), with an X display for Unity (`display`). Errors are in `errors`.
Only the standard library and numpy are needed in the child.
"""
