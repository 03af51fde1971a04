/* iperf3's authentication token as the server checks it (lp_i3auth_server_check), with a
 * key made once per process. The first byte picks what the rest is: 0, the decrypted text
 * (lp_i3auth_parse_text alone); 1, the token as it comes in the parameters (base64); else,
 * a plaintext the harness encrypts with the server's key (PKCS#1 v1.5), so the bytes reach
 * the text parser and the users file through a real decryption. */
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth/i3auth.h"
#include "fuzz.h"

static struct lp_i3auth_server *srv;
static EVP_PKEY *key;

static void setup(void)
{
    char dir[] = "/tmp/lp-fuzz-auth-XXXXXX", priv[64], users[64], h[65], err[300];
    if (!mkdtemp(dir) || !(key = EVP_RSA_gen(2048)))
        abort();
    snprintf(priv, sizeof(priv), "%s/priv.pem", dir);
    snprintf(users, sizeof(users), "%s/users.csv", dir);
    FILE *f = fopen(priv, "w");
    if (!f || !PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL))
        abort();
    fclose(f);
    lp_i3auth_hash_hex("mario", "rossi", h);
    f = fopen(users, "w");
    if (!f)
        abort();
    fprintf(f, "mario,%s\n", h);
    fclose(f);
    srv = lp_i3auth_server_new(priv, users, 10, false, err, sizeof(err));
    if (!srv)
        abort();
    /* the files are read at every check: they stay until the process ends */
}

static void check(const char *tok, size_t len)
{
    char user[LP_I3AUTH_NAME_MAX + 1], why[300];
    (void)lp_i3auth_server_check(srv, tok, len, 1796044518, user, why, sizeof(why));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!srv)
        setup();
    if (size == 0)
        return 0;
    const char *rest = (const char *)data + 1;
    size_t n = size - 1;
    if (data[0] == 0) {
        char u[LP_I3AUTH_NAME_MAX + 1], p[LP_I3AUTH_NAME_MAX + 1];
        int64_t ts;
        (void)lp_i3auth_parse_text(rest, n, u, p, &ts);
    } else if (data[0] == 1) {
        check(rest, n);
    } else {
        unsigned char blk[512], b64[700];
        size_t blen = sizeof(blk);
        EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(key, NULL);
        if (c && EVP_PKEY_encrypt_init(c) > 0 && EVP_PKEY_CTX_set_rsa_padding(c, RSA_PKCS1_PADDING) > 0 &&
            n <= 245 && EVP_PKEY_encrypt(c, blk, &blen, (const unsigned char *)rest, n) > 0) {
            int m = EVP_EncodeBlock(b64, blk, (int)blen);
            check((const char *)b64, (size_t)m);
        }
        EVP_PKEY_CTX_free(c);
    }
    return 0;
}
