// Small C functions for what Swift 6 cannot call directly: macros, variadic functions and
// static-inline helpers of OpenSSL 3 and CPython 3.11. Each one says why it exists.
#ifndef CSHIMS_H
#define CSHIMS_H

#include <sys/select.h>  // before Python.h: Foundation and CPython otherwise clash over fd_set
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <sys/random.h>  // getrandom(2): Glibc's Swift module does not export it
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <curl/curl.h>

// MARK: OpenSSL

/// OPENSSL_free is a macro that passes __FILE__/__LINE__ to CRYPTO_free.
void CShims_OPENSSL_free(void *pointer);
/// BIO_get_mem_data is a macro over BIO_ctrl; returns the length and sets *contents.
long CShims_BIO_get_mem_data(BIO *bio, char **contents);
/// EVP_RSA_gen is a macro over the variadic EVP_PKEY_Q_keygen.
EVP_PKEY *CShims_EVP_RSA_gen(unsigned int bits);
/// OPENSSL_memdup is a macro; EVP_PKEY_CTX_set0_rsa_oaep_label takes ownership of its buffer.
int CShims_EVP_PKEY_CTX_set_oaep_label_copy(EVP_PKEY_CTX *ctx, const unsigned char *label, size_t length);
/// A pem_password_cb that refuses, so OpenSSL never prompts on the terminal for a passphrase.
int CShims_refuse_passphrase(char *buffer, int size, int rwflag, void *userdata);

/// Key-selection masks are macros built from other macros, which Swift does not import.
int CShims_EVP_PKEY_PUBLIC_KEY(void);
int CShims_EVP_PKEY_KEYPAIR(void);

// MARK: CPython

/// Py_None, Py_True and Py_False are macros over C globals.
PyObject *CShims_Py_None(void);
PyObject *CShims_Py_True(void);
PyObject *CShims_Py_False(void);
/// Py_INCREF / Py_DECREF / Py_XDECREF are static inline functions over the object header.
void CShims_Py_IncRef(PyObject *object);
void CShims_Py_DecRef(PyObject *object);
/// The type checks are macros over tp_flags.
int CShims_PyBytes_Check(PyObject *object);
int CShims_PyUnicode_Check(PyObject *object);
int CShims_PyLong_Check(PyObject *object);
int CShims_PyBool_Check(PyObject *object);
int CShims_PyDict_Check(PyObject *object);
int CShims_PyList_Check(PyObject *object);
int CShims_PyTuple_Check(PyObject *object);
int CShims_PyFloat_Check(PyObject *object);
/// Sets config->program_name from UTF-8. PyConfig_SetBytesString would decode with the process
/// locale (not UTF-8 before Python starts), and Swift cannot pass &config and &config.field at once.
PyStatus CShims_PyConfig_SetProgramName(PyConfig *config, const char *utf8);
/// PyStatus's err_msg/func are const char*; PyStatus_Exception is a function but these help readability.
const char *CShims_PyStatus_message(PyStatus status);

// MARK: libssl and libcurl (Transport)

/// SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl.
int CShims_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version);
/// curl_easy_setopt is variadic (one shim per argument type); a long option (flags, timeouts).
CURLcode CShims_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
/// curl_easy_setopt is variadic; a curl_off_t option (sizes).
CURLcode CShims_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
/// curl_easy_setopt is variadic; a string or pointer option (libcurl copies strings; NULL resets).
CURLcode CShims_curl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value);
/// curl_easy_setopt is variadic; a curl_slist option (headers, resolve entries).
CURLcode CShims_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
/// curl_easy_setopt is variadic; a write or header callback.
CURLcode CShims_curl_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value);
/// curl_easy_getinfo is variadic; a long result (response code, TLS verify result).
CURLcode CShims_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);

#endif
