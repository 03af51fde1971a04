/* iperf3 authentication with OpenSSL (see i3auth.h). */
#include "auth/i3auth.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#define USERS_LINE_MAX 1024
#define REPLAY_SLOTS 256

/* ---- text ---- */

void lp_i3auth_hash_hex(const char *user, const char *password, char out[65])
{
    unsigned char md[32];
    unsigned int mdlen = 0;
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    memset(md, 0, sizeof(md));
    if (c && EVP_DigestInit_ex(c, EVP_sha256(), NULL) && EVP_DigestUpdate(c, "{", 1) &&
        EVP_DigestUpdate(c, user, strlen(user)) && EVP_DigestUpdate(c, "}", 1) &&
        EVP_DigestUpdate(c, password, strlen(password)))
        EVP_DigestFinal_ex(c, md, &mdlen);
    EVP_MD_CTX_free(c);
    for (unsigned i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
    out[64] = '\0';
}

int lp_i3auth_text(char *out, size_t cap, const char *user, const char *password, int64_t ts)
{
    int n = snprintf(out, cap, "user: %s\npwd:  %s\nts:   %" PRId64, user, password, ts);
    return n < 0 || (size_t)n >= cap ? -1 : n;
}

bool lp_i3auth_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > LP_I3AUTH_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch <= ' ' || ch == 0x7f)
            return false;
    }
    return true;
}

static size_t skip_ws(const char *t, size_t len, size_t i)
{
    while (i < len && isspace((unsigned char)t[i]))
        i++;
    return i;
}

/* A literal, then a white-space-free word into dst (sscanf's " lit %s"). */
static bool take_word(const char *t, size_t len, size_t *i, const char *lit, char *dst)
{
    size_t n = strlen(lit), k = 0;
    *i = skip_ws(t, len, *i);
    if (len - *i < n || memcmp(t + *i, lit, n) != 0)
        return false;
    *i = skip_ws(t, len, *i + n);
    while (*i < len && t[*i] && !isspace((unsigned char)t[*i])) {
        if (k == LP_I3AUTH_NAME_MAX)
            return false;
        dst[k++] = t[(*i)++];
    }
    dst[k] = '\0';
    return k > 0;
}

bool lp_i3auth_parse_text(const char *text, size_t len, char user[LP_I3AUTH_NAME_MAX + 1],
                          char password[LP_I3AUTH_NAME_MAX + 1], int64_t *ts)
{
    char num[LP_I3AUTH_NAME_MAX + 1];
    size_t i = 0;
    if (!take_word(text, len, &i, "user:", user) || !take_word(text, len, &i, "pwd:", password) ||
        !take_word(text, len, &i, "ts:", num))
        return false;
    /* %ld: an optional sign and digits; what follows them is ignored, as sscanf does. */
    char *end;
    errno = 0;
    long long v = strtoll(num, &end, 10);
    if (end == num || errno == ERANGE)
        return false;
    *ts = (int64_t)v;
    return true;
}

/* ---- OpenSSL helpers ---- */

static void ssl_err(char *err, size_t errlen, const char *what, const char *path)
{
    unsigned long e = ERR_get_error();
    char buf[160] = "";
    if (e)
        ERR_error_string_n(e, buf, sizeof(buf));
    ERR_clear_error();
    snprintf(err, errlen, "%s %s%s%s", what, path, buf[0] ? ": " : "", buf);
}

static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
    (void)buf, (void)size, (void)rwflag, (void)u;
    return -1; /* an encrypted key cannot be read without a terminal: say so, do not prompt */
}

static EVP_PKEY *load_key(const char *path, bool private_key, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open the RSA %s key %s: %s", private_key ? "private" : "public",
                 path, strerror(errno));
        return NULL;
    }
    EVP_PKEY *k = private_key ? PEM_read_PrivateKey(f, NULL, no_passphrase, NULL)
                              : PEM_read_PUBKEY(f, NULL, no_passphrase, NULL);
    fclose(f);
    if (!k) {
        ssl_err(err, errlen, private_key ? "not an unencrypted PEM private key:"
                                         : "not a PEM public key (openssl rsa -pubout):", path);
        return NULL;
    }
    if (EVP_PKEY_get_base_id(k) != EVP_PKEY_RSA) {
        snprintf(err, errlen, "%s is not an RSA key", path);
        EVP_PKEY_free(k);
        return NULL;
    }
    return k;
}

static EVP_PKEY_CTX *rsa_ctx(EVP_PKEY *k, bool encrypt, enum lp_i3auth_padding pad)
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(k, NULL);
    if (!c)
        return NULL;
    if ((encrypt ? EVP_PKEY_encrypt_init(c) : EVP_PKEY_decrypt_init(c)) <= 0 ||
        EVP_PKEY_CTX_set_rsa_padding(c, pad == LP_I3AUTH_PKCS1 ? RSA_PKCS1_PADDING
                                                                 : RSA_PKCS1_OAEP_PADDING) <= 0) {
        EVP_PKEY_CTX_free(c);
        return NULL;
    }
    return c;
}

/* ---- client ---- */

struct lp_i3auth_client {
    EVP_PKEY *key;
    enum lp_i3auth_padding pad;
    char user[LP_I3AUTH_NAME_MAX + 1];
    char password[LP_I3AUTH_NAME_MAX + 1];
};

struct lp_i3auth_client *lp_i3auth_client_new(const char *pubkey_path, const char *user,
                                              const char *password, enum lp_i3auth_padding pad,
                                              char *err, size_t errlen)
{
    if (!lp_i3auth_name_ok(user) || !lp_i3auth_name_ok(password)) {
        snprintf(err, errlen, "the user name and the password must be 1 to %d bytes without "
                              "spaces (iperf3's token ends a field at white space)",
                 LP_I3AUTH_NAME_MAX);
        return NULL;
    }
    struct lp_i3auth_client *a = calloc(1, sizeof(*a));
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    a->key = load_key(pubkey_path, false, err, errlen);
    if (!a->key) {
        free(a);
        return NULL;
    }
    a->pad = pad;
    snprintf(a->user, sizeof(a->user), "%s", user);
    snprintf(a->password, sizeof(a->password), "%s", password);
    return a;
}

enum lp_i3auth_padding lp_i3auth_client_padding(const struct lp_i3auth_client *a)
{
    return a->pad;
}

char *lp_i3auth_client_token(const struct lp_i3auth_client *a, int64_t ts, char *err,
                             size_t errlen)
{
    char text[2 * LP_I3AUTH_NAME_MAX + 64];
    int n = lp_i3auth_text(text, sizeof(text), a->user, a->password, ts);
    EVP_PKEY_CTX *c = rsa_ctx(a->key, true, a->pad);
    unsigned char *blk = NULL;
    char *b64 = NULL;
    size_t blen = 0;
    if (n < 0 || !c || EVP_PKEY_encrypt(c, NULL, &blen, (const unsigned char *)text, (size_t)n) <= 0 ||
        !(blk = malloc(blen)) ||
        EVP_PKEY_encrypt(c, blk, &blen, (const unsigned char *)text, (size_t)n) <= 0) {
        ssl_err(err, errlen, "cannot encrypt the authentication token", "(key too small?)");
        goto out;
    }
    b64 = malloc(4 * ((blen + 2) / 3) + 1);
    if (!b64) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    EVP_EncodeBlock((unsigned char *)b64, blk, (int)blen);
out:
    OPENSSL_cleanse(text, sizeof(text));
    free(blk);
    EVP_PKEY_CTX_free(c);
    return b64;
}

void lp_i3auth_client_free(struct lp_i3auth_client *a)
{
    if (!a)
        return;
    EVP_PKEY_free(a->key);
    OPENSSL_cleanse(a->password, sizeof(a->password));
    free(a);
}

/* ---- server ---- */

struct replay {
    unsigned char md[32];
    int64_t ts;
};

struct lp_i3auth_server {
    EVP_PKEY *key;
    char *users_path;
    unsigned skew_s;
    bool pkcs1_only;
    struct replay seen[REPLAY_SLOTS];
    unsigned next;
};

struct lp_i3auth_server *lp_i3auth_server_new(const char *privkey_path, const char *users_path,
                                              unsigned skew_s, bool pkcs1_only, char *err,
                                              size_t errlen)
{
    FILE *f = fopen(users_path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read the authorized users file %s: %s", users_path,
                 strerror(errno));
        return NULL;
    }
    fclose(f);
    struct lp_i3auth_server *a = calloc(1, sizeof(*a));
    if (!a || !(a->users_path = strdup(users_path))) {
        free(a);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    a->key = load_key(privkey_path, true, err, errlen);
    if (!a->key) {
        lp_i3auth_server_free(a);
        return NULL;
    }
    a->skew_s = skew_s;
    a->pkcs1_only = pkcs1_only;
    return a;
}

/* Standard base64 with padding and no line breaks, as iperf3 sends it. Returns the decoded
 * length, or -1 for anything else. */
static int unbase64(const char *s, size_t len, unsigned char *out, size_t cap)
{
    if (len == 0 || len % 4 || len / 4 * 3 > cap)
        return -1;
    size_t pad = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '=') {
            if (i < len - 2)
                return -1;
            pad++;
        } else if (pad || !(isalnum(ch) || ch == '+' || ch == '/')) {
            return -1;
        }
    }
    int n = EVP_DecodeBlock(out, (const unsigned char *)s, (int)len);
    return n < 0 ? -1 : n - (int)pad;
}

static bool decrypt(struct lp_i3auth_server *a, const unsigned char *blk, size_t n,
                    enum lp_i3auth_padding pad, char *text, size_t cap, size_t *len)
{
    EVP_PKEY_CTX *c = rsa_ctx(a->key, false, pad);
    size_t out = cap - 1;
    bool ok = c && EVP_PKEY_decrypt(c, (unsigned char *)text, &out, blk, n) > 0;
    EVP_PKEY_CTX_free(c);
    ERR_clear_error();
    if (!ok)
        return false;
    text[out] = '\0';
    *len = out;
    return true;
}

/* Whether the users file has user with this password's hash (read now, line by line). */
static bool user_listed(const struct lp_i3auth_server *a, const char *user, const char *hash,
                        char *why, size_t whylen)
{
    FILE *f = fopen(a->users_path, "r");
    char line[USERS_LINE_MAX];
    bool found = false, ok = false;
    if (!f) {
        snprintf(why, whylen, "cannot read the authorized users file %s: %s", a->users_path,
                 strerror(errno));
        return false;
    }
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *comma = strchr(line, ',');
        if (line[0] == '#' || !comma)
            continue;
        *comma = '\0';
        char *h = comma + 1;
        h[strcspn(h, ",")] = '\0';
        if (strcmp(line, user) != 0)
            continue;
        found = true;
        if (strlen(h) == 64 && CRYPTO_memcmp(h, hash, 64) == 0)
            ok = true;
    }
    fclose(f);
    if (!ok)
        snprintf(why, whylen, found ? "wrong password" : "user not in the authorized users file");
    return ok;
}

static bool replayed(struct lp_i3auth_server *a, const unsigned char md[32], int64_t now)
{
    for (unsigned i = 0; i < REPLAY_SLOTS; i++) {
        const struct replay *r = &a->seen[i];
        int64_t age = now - r->ts;
        if (r->ts && age <= 2 * (int64_t)a->skew_s && age >= -2 * (int64_t)a->skew_s &&
            memcmp(r->md, md, 32) == 0)
            return true;
    }
    return false;
}

bool lp_i3auth_server_check(struct lp_i3auth_server *a, const char *token, size_t len,
                            int64_t now, char user[LP_I3AUTH_NAME_MAX + 1], char *why,
                            size_t whylen)
{
    unsigned char blk[LP_I3AUTH_TOKEN_MAX];
    char text[LP_I3AUTH_TOKEN_MAX], password[LP_I3AUTH_NAME_MAX + 1], hash[65];
    size_t tlen = 0;
    int64_t ts = 0;
    bool ok = false;

    user[0] = '\0';
    if (!token || len == 0) {
        snprintf(why, whylen, "no authentication token");
        return false;
    }
    int n = len > LP_I3AUTH_TOKEN_MAX ? -1 : unbase64(token, len, blk, sizeof(blk));
    if (n <= 0 || (size_t)n != (size_t)EVP_PKEY_get_size(a->key)) {
        snprintf(why, whylen, "the token is not base64 of one RSA block of this key");
        return false;
    }
    if (!(!a->pkcs1_only && decrypt(a, blk, (size_t)n, LP_I3AUTH_OAEP, text, sizeof(text), &tlen)) &&
        !decrypt(a, blk, (size_t)n, LP_I3AUTH_PKCS1, text, sizeof(text), &tlen)) {
        snprintf(why, whylen, "the token does not decrypt with this server's key%s",
                 a->pkcs1_only ? " (PKCS#1 v1.5 only: --use-pkcs1-padding)" : "");
        return false;
    }
    if (!lp_i3auth_parse_text(text, tlen, user, password, &ts)) {
        user[0] = '\0';
        snprintf(why, whylen, "the token's text is not iperf3's user/pwd/ts form");
        goto out;
    }
    if (ts > now + (int64_t)a->skew_s || ts < now - (int64_t)a->skew_s) {
        snprintf(why, whylen, "the token's time %" PRId64 " is %" PRId64 " s from the server's "
                 "(--time-skew-threshold %u)", ts, ts - now, a->skew_s);
        goto out;
    }
    lp_i3auth_hash_hex(user, password, hash);
    if (!user_listed(a, user, hash, why, whylen))
        goto out;
    unsigned char md[32];
    unsigned mdlen = 0;
    if (!EVP_Digest(blk, (size_t)n, md, &mdlen, EVP_sha256(), NULL)) {
        snprintf(why, whylen, "cannot hash the token");
        goto out;
    }
    if (replayed(a, md, now)) {
        snprintf(why, whylen, "the token was used before (a replay)");
        goto out;
    }
    memcpy(a->seen[a->next].md, md, 32);
    a->seen[a->next].ts = now ? now : 1;
    a->next = (a->next + 1) % REPLAY_SLOTS;
    ok = true;
out:
    OPENSSL_cleanse(text, sizeof(text));
    OPENSSL_cleanse(password, sizeof(password));
    return ok;
}

void lp_i3auth_server_free(struct lp_i3auth_server *a)
{
    if (!a)
        return;
    EVP_PKEY_free(a->key);
    free(a->users_path);
    free(a);
}

/* ---- password ---- */

bool lp_i3auth_read_password(char out[LP_I3AUTH_NAME_MAX + 1], char *err, size_t errlen)
{
    const char *env = getenv("IPERF3_PASSWORD");
    if (env) {
        if (strlen(env) > LP_I3AUTH_NAME_MAX) {
            snprintf(err, errlen, "IPERF3_PASSWORD is longer than %d bytes", LP_I3AUTH_NAME_MAX);
            return false;
        }
        snprintf(out, LP_I3AUTH_NAME_MAX + 1, "%s", env);
        return true;
    }
    int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "--username needs a password: set IPERF3_PASSWORD (there is no "
                              "terminal to ask on)");
        return false;
    }
    struct termios old, quiet;
    bool restore = tcgetattr(fd, &old) == 0;
    if (restore) {
        quiet = old;
        quiet.c_lflag &= ~(tcflag_t)ECHO;
        tcsetattr(fd, TCSAFLUSH, &quiet);
    }
    ssize_t w = write(fd, "Password: ", 10);
    (void)w;
    size_t k = 0;
    bool ok = true;
    for (;;) {
        char ch;
        ssize_t r = read(fd, &ch, 1);
        if (r <= 0 || ch == '\n' || ch == '\r')
            break;
        if (k == LP_I3AUTH_NAME_MAX) {
            ok = false;
            continue;
        }
        out[k++] = ch;
    }
    out[k] = '\0';
    if (restore)
        tcsetattr(fd, TCSAFLUSH, &old);
    w = write(fd, "\n", 1);
    close(fd);
    if (!ok)
        snprintf(err, errlen, "the password is longer than %d bytes", LP_I3AUTH_NAME_MAX);
    return ok;
}
