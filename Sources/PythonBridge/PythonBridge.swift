// PythonBridge — the one embedded CPython of the process (Debian's python3 with an isolated config,
// started once, never finalised), owned references that lend their pointer only inside `borrow`,
// the GIL taken per call on pinned per-thread states, `PythonValue` conversions, `PythonError`.
// May import: CPython and CPythonShims (internally only).
