#include "CPythonShims.h"
#include <string.h>
#include <wchar.h>

PyObject *CPythonShims_Py_None(void) { return Py_None; }
PyObject *CPythonShims_Py_True(void) { return Py_True; }
PyObject *CPythonShims_Py_False(void) { return Py_False; }
void CPythonShims_Py_IncRef(PyObject *object) { Py_INCREF(object); }
void CPythonShims_Py_DecRef(PyObject *object) { Py_XDECREF(object); }
int CPythonShims_PyBytes_Check(PyObject *object) { return PyBytes_Check(object); }
int CPythonShims_PyUnicode_Check(PyObject *object) { return PyUnicode_Check(object); }
int CPythonShims_PyLong_Check(PyObject *object) { return PyLong_Check(object); }
int CPythonShims_PyBool_Check(PyObject *object) { return PyBool_Check(object); }
int CPythonShims_PyDict_Check(PyObject *object) { return PyDict_Check(object); }
int CPythonShims_PyList_Check(PyObject *object) { return PyList_Check(object); }
int CPythonShims_PyTuple_Check(PyObject *object) { return PyTuple_Check(object); }
int CPythonShims_PyFloat_Check(PyObject *object) { return PyFloat_Check(object); }

PyStatus CPythonShims_PyConfig_SetProgramName(PyConfig *config, const char *value) {
    // mbstowcs would depend on the process locale; decode UTF-8 by hand into a wchar_t buffer.
    size_t length = strlen(value);
    wchar_t *wide = PyMem_RawMalloc((length + 1) * sizeof(wchar_t));
    if (wide == NULL) return PyStatus_NoMemory();
    size_t out = 0;
    const unsigned char *bytes = (const unsigned char *)value;
    for (size_t i = 0; i < length;) {
        unsigned int c = bytes[i];
        int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
        unsigned int code = extra == 0 ? c : extra == 1 ? (c & 0x1F) : extra == 2 ? (c & 0x0F) : (c & 0x07);
        i++;
        for (int k = 0; k < extra && i < length; k++, i++) code = (code << 6) | (bytes[i] & 0x3F);
        wide[out++] = (wchar_t)code;
    }
    wide[out] = L'\0';
    PyStatus status = PyConfig_SetString(config, &config->program_name, wide);
    PyMem_RawFree(wide);
    return status;
}

const char *CPythonShims_PyStatus_message(PyStatus status) { return status.err_msg ? status.err_msg : "(no message)"; }
