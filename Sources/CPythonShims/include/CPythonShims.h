// C functions for the parts of CPython 3.11's C API that Swift 6 cannot call directly: macros over
// C globals and static-inline helpers. Each one says why it exists. Used by PythonBridge only.
#ifndef CPYTHONSHIMS_H
#define CPYTHONSHIMS_H

#include <sys/select.h>  // before Python.h: Foundation and CPython otherwise clash over fd_set
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/// Py_None, Py_True and Py_False are macros over C globals.
PyObject *CPythonShims_Py_None(void);
PyObject *CPythonShims_Py_True(void);
PyObject *CPythonShims_Py_False(void);
/// Py_INCREF / Py_DECREF / Py_XDECREF are static inline functions over the object header.
void CPythonShims_Py_IncRef(PyObject *object);
void CPythonShims_Py_DecRef(PyObject *object);
/// The type checks are macros over tp_flags.
int CPythonShims_PyBytes_Check(PyObject *object);
int CPythonShims_PyUnicode_Check(PyObject *object);
int CPythonShims_PyLong_Check(PyObject *object);
int CPythonShims_PyBool_Check(PyObject *object);
int CPythonShims_PyDict_Check(PyObject *object);
int CPythonShims_PyList_Check(PyObject *object);
int CPythonShims_PyTuple_Check(PyObject *object);
int CPythonShims_PyFloat_Check(PyObject *object);
/// Sets config->program_name from UTF-8. PyConfig_SetBytesString would decode with the process
/// locale (not UTF-8 before Python starts), and Swift cannot pass &config and &config.field at once.
PyStatus CPythonShims_PyConfig_SetProgramName(PyConfig *config, const char *utf8);
/// PyStatus's err_msg may be NULL; this gives a printable message either way.
const char *CPythonShims_PyStatus_message(PyStatus status);

#endif
