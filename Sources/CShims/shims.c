#include "CShims.h"
#include <openssl/crypto.h>
#include <openssl/rsa.h>
#include <string.h>
#include <wchar.h>

void CShims_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }

long CShims_BIO_get_mem_data(BIO *bio, char **contents) { return BIO_get_mem_data(bio, contents); }

EVP_PKEY *CShims_EVP_RSA_gen(unsigned int bits) { return EVP_RSA_gen(bits); }

int CShims_EVP_PKEY_CTX_set_oaep_label_copy(EVP_PKEY_CTX *ctx, const unsigned char *label, size_t length) {
    if (length == 0) return 1;  // an empty label is OpenSSL's default; nothing to set
    unsigned char *copy = OPENSSL_memdup(label, length);
    if (copy == NULL) return 0;
    int result = EVP_PKEY_CTX_set0_rsa_oaep_label(ctx, copy, (int)length);
    if (result <= 0) OPENSSL_free(copy);
    return result;
}

int CShims_refuse_passphrase(char *buffer, int size, int rwflag, void *userdata) {
    (void)buffer; (void)size; (void)rwflag; (void)userdata;
    return -1;
}

int CShims_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }
int CShims_EVP_PKEY_KEYPAIR(void) { return EVP_PKEY_KEYPAIR; }

PyObject *CShims_Py_None(void) { return Py_None; }
PyObject *CShims_Py_True(void) { return Py_True; }
PyObject *CShims_Py_False(void) { return Py_False; }
void CShims_Py_IncRef(PyObject *object) { Py_INCREF(object); }
void CShims_Py_DecRef(PyObject *object) { Py_XDECREF(object); }
int CShims_PyBytes_Check(PyObject *object) { return PyBytes_Check(object); }
int CShims_PyUnicode_Check(PyObject *object) { return PyUnicode_Check(object); }
int CShims_PyLong_Check(PyObject *object) { return PyLong_Check(object); }
int CShims_PyBool_Check(PyObject *object) { return PyBool_Check(object); }
int CShims_PyDict_Check(PyObject *object) { return PyDict_Check(object); }
int CShims_PyList_Check(PyObject *object) { return PyList_Check(object); }
int CShims_PyTuple_Check(PyObject *object) { return PyTuple_Check(object); }
int CShims_PyFloat_Check(PyObject *object) { return PyFloat_Check(object); }

PyStatus CShims_PyConfig_SetProgramName(PyConfig *config, const char *value) {
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

const char *CShims_PyStatus_message(PyStatus status) { return status.err_msg ? status.err_msg : "(no message)"; }

int CShims_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_min_proto_version(context, version);
}
CURLcode CShims_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode CShims_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode CShims_curl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode CShims_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode CShims_curl_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode CShims_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
