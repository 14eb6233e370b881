// BoringSSL's AEAD and HMAC context APIs, as swift-crypto links them into every binary that uses
// Crypto (its symbols carry swift-crypto's `CCryptoBoringSSL_` prefix). swift-crypto does not
// export its BoringSSL module; its AES.GCM builds a new context (key schedule, GHASH table) on
// every call and its HMAC copies Swift-managed hash states per message. A scan of 100k notes wants
// one context per key. Declarations only: the definitions are swift-crypto's, so a change of its
// prefix fails at link time, never silently. Contexts, AEADs and digests are opaque here (void),
// so no BoringSSL struct layout is restated.
#ifndef FINGERLOCK_CBORINGSSLSHIM_H
#define FINGERLOCK_CBORINGSSLSHIM_H

#include <stddef.h>
#include <stdint.h>

const void *CCryptoBoringSSL_EVP_aead_aes_256_gcm(void);

// Returns NULL on failure. Freeing cleanses the context (BoringSSL's OPENSSL_free zeroes memory).
void *CCryptoBoringSSL_EVP_AEAD_CTX_new(const void *aead, const uint8_t *key, size_t key_len, size_t tag_len);
void CCryptoBoringSSL_EVP_AEAD_CTX_free(void *ctx);

// Thread-safe on one context: `ctx` is const. Returns 1 on success, 0 when the input does not authenticate.
int CCryptoBoringSSL_EVP_AEAD_CTX_open(
    const void *ctx, uint8_t *out, size_t *out_len, size_t max_out_len, const uint8_t *nonce, size_t nonce_len,
    const uint8_t *in, size_t in_len, const uint8_t *ad, size_t ad_len);

// HMAC: a context keeps the keyed state; Init_ex with a NULL key and digest rewinds it to that state
// for the next message. A context is used by one thread at a time. Return 1 on success.
const void *CCryptoBoringSSL_EVP_sha256(void);
void *CCryptoBoringSSL_HMAC_CTX_new(void);
void CCryptoBoringSSL_HMAC_CTX_free(void *ctx);
int CCryptoBoringSSL_HMAC_Init_ex(void *ctx, const void *key, size_t key_len, const void *md, void *engine);
int CCryptoBoringSSL_HMAC_Update(void *ctx, const uint8_t *data, size_t data_len);
int CCryptoBoringSSL_HMAC_Final(void *ctx, uint8_t *out, unsigned int *out_len);

#endif
