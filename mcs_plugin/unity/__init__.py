"""The real-MCS backend: machine_common_sense (and its Unity app) hosted in a child process.

`adapter.UnityBackend` runs in the host child (often a Python 3.10 venv) and handles the library's quirks;
`convert` turns its StepMetadata into this package's (tests/fake_ai2thor.py runs the library's real Controller
without Unity). Nothing here is imported by `import mcs_plugin`.
"""
