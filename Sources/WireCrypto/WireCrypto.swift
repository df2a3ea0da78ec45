// WireCrypto — the Swift side's crypto over OpenSSL 3, and the only place crypto is written in
// Swift: RSA keys in every format and RSA encryption (`_WEAK_AND_INSECURE_PKCS_V1_5`, OAEP with any
// hash pair and label), AES-CBC and the aes-https `{"data","iv"}` envelope with both key-derivation
// modes, AES-GCM and ChaChaPoly, digests, HKDF (RFC 5869) and AES key wrap (RFC 3394), probe encodings for
// padding-oracle tests, and `OpenSSLError` (the one reader of OpenSSL's error queue); EC keys
// (P-256/384/521 in X9.63, raw, compressed, SPKI/PKCS#8/SEC 1), ECDSA, ECDH and the X9.63 KDF, and
// X25519/Ed25519. Files are in folders by family: RSA/, Symmetric/, EC/, Digest/, Encoding/, X509/.
// May import: StrictFormats; COpenSSL and COpenSSLShims (internally only).
