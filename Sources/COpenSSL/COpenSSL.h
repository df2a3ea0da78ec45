// The parts of OpenSSL 3 that crosscheck uses (libcrypto EVP, PEM, BIO, ERR; libssl for TLS).
#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/decoder.h>
#include <openssl/encoder.h>
#include <openssl/opensslv.h>
#include <openssl/pkcs12.h>
#include <openssl/provider.h>
