/* iperf3's authentication (3.2+): the client encrypts "user: U\npwd:  P\nts:   T" with the
 * server's RSA public key and sends it base64'd as the parameter "authtoken"; the server
 * decrypts it, checks the time against its skew threshold and the user against a file of
 * "user,sha256hex({user}password)" lines. Wire facts: protocols/iperf3.md section 8 and
 * docs/internals/auth.md. OpenSSL does the RSA, base64 and SHA-256. */
#ifndef LP_I3AUTH_H
#define LP_I3AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LP_I3AUTH_DEFAULT_SKEW_S 10u  /* iperf3's --time-skew-threshold default */
#define LP_I3AUTH_NAME_MAX 255        /* user name and password, bytes */
#define LP_I3AUTH_TOKEN_MAX 2800      /* base64 of a 16384-bit RSA block, and some */

/* Padding of the RSA block: iperf3 up to 3.16 used PKCS#1 v1.5, 3.17 and later OAEP
 * (SHA-1) unless --use-pkcs1-padding. */
enum lp_i3auth_padding { LP_I3AUTH_OAEP, LP_I3AUTH_PKCS1 };

/* ---- pure text (no keys): unit-tested against the captures ---- */

/* The lowercase hex SHA-256 of "{user}password": what the users file holds. */
void lp_i3auth_hash_hex(const char *user, const char *password, char out[65]);

/* The token's plaintext, exactly as iperf3 writes it. Returns its length, or -1 if it
 * does not fit in cap bytes. */
int lp_i3auth_text(char *out, size_t cap, const char *user, const char *password, int64_t ts);

/* Parses a decrypted plaintext as iperf3's sscanf("user: %s\npwd:  %s\nts:   %ld") does
 * (whitespace in the format matches any run of it, %s stops at white space). Returns false
 * if a field is missing, empty or longer than LP_I3AUTH_NAME_MAX. */
bool lp_i3auth_parse_text(const char *text, size_t len, char user[LP_I3AUTH_NAME_MAX + 1],
                          char password[LP_I3AUTH_NAME_MAX + 1], int64_t *ts);

/* Whether a user name or password can travel in a token a stock server parses: 1 to
 * LP_I3AUTH_NAME_MAX bytes, no white space, no control bytes. */
bool lp_i3auth_name_ok(const char *s);

/* ---- client ---- */

struct lp_i3auth_client;

/* Loads the PEM public key (SubjectPublicKeyInfo, as `openssl rsa -pubout` writes it). */
struct lp_i3auth_client *lp_i3auth_client_new(const char *pubkey_path, const char *user,
                                              const char *password, enum lp_i3auth_padding pad,
                                              char *err, size_t errlen);
/* A fresh token for a test starting at ts (seconds since the epoch): malloc'd base64 text,
 * or NULL with err. */
char *lp_i3auth_client_token(const struct lp_i3auth_client *a, int64_t ts, char *err,
                             size_t errlen);
enum lp_i3auth_padding lp_i3auth_client_padding(const struct lp_i3auth_client *a);
void lp_i3auth_client_free(struct lp_i3auth_client *a);

/* ---- server ---- */

struct lp_i3auth_server;

/* Loads the PEM private key and checks that the users file can be read (it is read again
 * for every test, as iperf3 does, so edits apply without a restart). pkcs1_only: accept only
 * PKCS#1 v1.5 tokens (iperf3 3.17's server --use-pkcs1-padding); otherwise both paddings
 * are accepted, so clients of every iperf3 version get in. */
struct lp_i3auth_server *lp_i3auth_server_new(const char *privkey_path, const char *users_path,
                                              unsigned skew_s, bool pkcs1_only, char *err,
                                              size_t errlen);

/* Checks one token (untrusted bytes from the network) at time now. Returns true and the
 * user name when it admits the test; false with the reason (for the server's log, never
 * for the client) otherwise. A token accepted once is refused if it comes again within
 * the skew window (a replay: stock clients make a new one for every test). */
bool lp_i3auth_server_check(struct lp_i3auth_server *a, const char *token, size_t len,
                            int64_t now, char user[LP_I3AUTH_NAME_MAX + 1], char *why,
                            size_t whylen);
void lp_i3auth_server_free(struct lp_i3auth_server *a);

/* Reads a password: $IPERF3_PASSWORD if set, else a prompt on the terminal with echo off
 * (iperf3's "Password: "). Returns false with err when there is neither. */
bool lp_i3auth_read_password(char out[LP_I3AUTH_NAME_MAX + 1], char *err, size_t errlen);

#endif
