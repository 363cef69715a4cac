// The system OpenSSL's libcrypto (Linux): SHA-256 through its EVP interface, where CryptoKit is not.
#include <openssl/evp.h>
