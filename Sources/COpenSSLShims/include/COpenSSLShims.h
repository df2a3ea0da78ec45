// C functions for the parts of OpenSSL 3 that Swift 6 cannot call directly: macros and variadic
// functions. Each one says why it exists. Used by WireCrypto and Transport.
#ifndef COPENSSLSHIMS_H
#define COPENSSLSHIMS_H

#include <sys/random.h>  // getrandom(2) for WireCrypto: Glibc's Swift module does not export it
#include <openssl/evp.h>
#include <openssl/ssl.h>

/// OPENSSL_free is a macro that passes __FILE__/__LINE__ to CRYPTO_free.
void COpenSSLShims_OPENSSL_free(void *pointer);
/// EVP_RSA_gen is a macro over the variadic EVP_PKEY_Q_keygen.
EVP_PKEY *COpenSSLShims_EVP_RSA_gen(unsigned int bits);
/// OPENSSL_memdup is a macro; EVP_PKEY_CTX_set0_rsa_oaep_label takes ownership of its buffer.
int COpenSSLShims_EVP_PKEY_CTX_set_oaep_label_copy(EVP_PKEY_CTX *ctx, const unsigned char *label, size_t length);
/// A pem_password_cb that refuses, so OpenSSL never prompts on the terminal for a passphrase.
int COpenSSLShims_refuse_passphrase(char *buffer, int size, int rwflag, void *userdata);
/// Key-selection masks are macros built from other macros, which Swift does not import.
int COpenSSLShims_EVP_PKEY_PUBLIC_KEY(void);
int COpenSSLShims_EVP_PKEY_KEYPAIR(void);
/// SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl.
int COpenSSLShims_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version);
/// SSL_CTX_set_max_proto_version is a macro over SSL_CTX_ctrl (the TLS probe offers one version at a time).
int COpenSSLShims_SSL_CTX_set_max_proto_version(SSL_CTX *context, int version);
/// SSL_set_tlsext_host_name (SNI) is a macro over SSL_ctrl.
int COpenSSLShims_SSL_set_tlsext_host_name(SSL *ssl, const char *name);

#endif
