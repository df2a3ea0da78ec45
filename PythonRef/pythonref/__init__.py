"""pythonref: the Python reference implementation for crosscheck.

The Swift side embeds CPython and calls exactly one function,
`pythonref.handlers.handle(op, args) -> dict`. Everything else here is pure
crypto code (pyca/cryptography + stdlib) that the handlers wrap.
"""

__version__ = "0.1.0"
