// CPython's C API. <sys/select.h> first: otherwise Foundation and Python.h clash over fd_set.
#include <sys/select.h>
#define PY_SSIZE_T_CLEAN
#include <Python.h>
