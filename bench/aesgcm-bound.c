/*
 * The hardware bound for `notes search` in bench/bench.sh: `aesgcm-bound N [THREADS]` seals N
 * records shaped like fingerlock's notes (a ~100-byte header and a ~1,000-byte body, AES-256-GCM,
 * 12-byte nonce, 16-byte tag, 60 bytes of associated data each) in memory, then times opening all
 * of them with one EVP context per thread and prints the milliseconds of the open pass alone. No
 * database, no process start-up: what the crypto itself costs on this machine.
 */
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { HEADER = 100, BODY = 1000, AD = 60, NONCE = 12, TAG = 16 };

struct record { unsigned char nonce[NONCE], tag[TAG], ad[AD]; unsigned char *cipher; int length; };
struct work { struct record *records; long first, last; const unsigned char *key; long failures; };

static void seal(EVP_CIPHER_CTX *ctx, const unsigned char *key, struct record *r, const unsigned char *plain, int length) {
    int n = 0;
    r->cipher = malloc(length);
    r->length = length;
    EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, key, r->nonce);
    EVP_EncryptUpdate(ctx, NULL, &n, r->ad, AD);
    EVP_EncryptUpdate(ctx, r->cipher, &n, plain, length);
    EVP_EncryptFinal_ex(ctx, r->cipher + n, &n);
    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, TAG, r->tag);
}

static void *open_range(void *argument) {
    struct work *w = argument;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    unsigned char *plain = malloc(BODY + HEADER);
    EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, w->key, NULL);  /* one key schedule per thread */
    for (long i = w->first; i < w->last; i++) {
        struct record *r = &w->records[i];
        int n = 0;
        EVP_DecryptInit_ex(ctx, NULL, NULL, NULL, r->nonce);
        EVP_DecryptUpdate(ctx, NULL, &n, r->ad, AD);
        EVP_DecryptUpdate(ctx, plain, &n, r->cipher, r->length);
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, TAG, r->tag);
        if (EVP_DecryptFinal_ex(ctx, plain + n, &n) <= 0) w->failures++;
    }
    free(plain);
    EVP_CIPHER_CTX_free(ctx);
    return NULL;
}

int main(int argc, char **argv) {
    long notes = argc > 1 ? atol(argv[1]) : 100000;
    int threads = argc > 2 ? atoi(argv[2]) : 1;
    if (notes <= 0 || threads <= 0 || threads > 64) { fprintf(stderr, "usage: aesgcm-bound N [THREADS]\n"); return 64; }
    unsigned char key[32], plain[BODY];
    for (int i = 0; i < 32; i++) key[i] = (unsigned char) (i * 7 + 1);
    memset(plain, 'a', sizeof plain);
    long count = notes * 2;  /* a header and a body per note */
    struct record *records = calloc(count, sizeof *records);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    for (long i = 0; i < count; i++) {
        memcpy(records[i].nonce, &i, sizeof i);
        memcpy(records[i].ad, &i, sizeof i);
        seal(ctx, key, &records[i], plain, i % 2 ? BODY : HEADER);
    }
    EVP_CIPHER_CTX_free(ctx);
    struct work work[64];
    pthread_t ids[64];
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long per = (count + threads - 1) / threads;
    for (int t = 0; t < threads; t++) {
        work[t] = (struct work){records, t * per, (t + 1) * per < count ? (t + 1) * per : count, key, 0};
        pthread_create(&ids[t], NULL, open_range, &work[t]);
    }
    long failures = 0;
    for (int t = 0; t < threads; t++) { pthread_join(ids[t], NULL); failures += work[t].failures; }
    clock_gettime(CLOCK_MONOTONIC, &end);
    if (failures) { fprintf(stderr, "aesgcm-bound: %ld records did not open\n", failures); return 2; }
    printf("%.2f\n", (end.tv_sec - start.tv_sec) * 1e3 + (end.tv_nsec - start.tv_nsec) / 1e6);
    return 0;
}
