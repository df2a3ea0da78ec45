#include "COpenSSLShims.h"
#include <openssl/crypto.h>
#include <openssl/rsa.h>

void COpenSSLShims_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }

EVP_PKEY *COpenSSLShims_EVP_RSA_gen(unsigned int bits) { return EVP_RSA_gen(bits); }

int COpenSSLShims_EVP_PKEY_CTX_set_oaep_label_copy(EVP_PKEY_CTX *ctx, const unsigned char *label, size_t length) {
    if (length == 0) return 1;  // an empty label is OpenSSL's default; nothing to set
    unsigned char *copy = OPENSSL_memdup(label, length);
    if (copy == NULL) return 0;
    int result = EVP_PKEY_CTX_set0_rsa_oaep_label(ctx, copy, (int)length);
    if (result <= 0) OPENSSL_free(copy);
    return result;
}

int COpenSSLShims_refuse_passphrase(char *buffer, int size, int rwflag, void *userdata) {
    (void)buffer; (void)size; (void)rwflag; (void)userdata;
    return -1;
}

int COpenSSLShims_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }
int COpenSSLShims_EVP_PKEY_KEYPAIR(void) { return EVP_PKEY_KEYPAIR; }

int COpenSSLShims_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_min_proto_version(context, version);
}

int COpenSSLShims_SSL_CTX_set_max_proto_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_max_proto_version(context, version);
}

int COpenSSLShims_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}
