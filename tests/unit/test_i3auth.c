/* iperf3 authentication: the users-file hash and the token text match what stock 3.12
 * wrote (protocols/evidence/iperf3/auth_3.12.txt); a token made by our client passes our
 * server with both paddings, and every way to get it wrong is refused with its reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth/i3auth.h"

static void hash_is_stock(void **state)
{
    (void)state;
    char h[65];
    lp_i3auth_hash_hex("mario", "rossi", h);
    assert_string_equal(h, "bf7a49a846d44b454a5d11e7acfaf13d138bbe0b7483aa3e050879700572709b");
}

static void text_is_stock(void **state)
{
    (void)state;
    char t[128];
    assert_int_equal(lp_i3auth_text(t, sizeof(t), "mario", "rossi", 1796044518), 40);
    assert_string_equal(t, "user: mario\npwd:  rossi\nts:   1796044518");
    assert_int_equal(lp_i3auth_text(t, 10, "mario", "rossi", 1), -1);
}

static void text_parses_like_sscanf(void **state)
{
    (void)state;
    char u[LP_I3AUTH_NAME_MAX + 1], p[LP_I3AUTH_NAME_MAX + 1];
    int64_t ts = 0;
    const char *ok = "user: mario\npwd:  rossi\nts:   1796044518";
    assert_true(lp_i3auth_parse_text(ok, strlen(ok), u, p, &ts));
    assert_string_equal(u, "mario");
    assert_string_equal(p, "rossi");
    assert_true(ts == 1796044518);
    const char *loose = "  user:mario \n\n pwd:\trossi ts: -5xyz";
    assert_true(lp_i3auth_parse_text(loose, strlen(loose), u, p, &ts));
    assert_true(ts == -5);
    const char *bad[] = {"", "user: mario", "user: mario\npwd:  rossi", "user: mario\npwd:  rossi\nts: x",
                         "usr: mario\npwd: r\nts: 1", "user: \npwd:  r\nts: 1",
                         "user: m\npwd: r\nts: 99999999999999999999999"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_false(lp_i3auth_parse_text(bad[i], strlen(bad[i]), u, p, &ts));
    /* a NUL inside ends the word; the length bounds the scan, not a terminator */
    const char nul[] = "user: ma\0rio\npwd: r\nts: 1";
    assert_false(lp_i3auth_parse_text(nul, sizeof(nul) - 1, u, p, &ts));
    char longname[600];
    memset(longname, 'a', sizeof(longname));
    memcpy(longname, "user: ", 6);
    assert_false(lp_i3auth_parse_text(longname, sizeof(longname), u, p, &ts));
}

static void names(void **state)
{
    (void)state;
    assert_true(lp_i3auth_name_ok("mario"));
    assert_false(lp_i3auth_name_ok(""));
    assert_false(lp_i3auth_name_ok("a b"));
    assert_false(lp_i3auth_name_ok("a\tb"));
    assert_false(lp_i3auth_name_ok("a\x7f"));
    char big[LP_I3AUTH_NAME_MAX + 2];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    assert_false(lp_i3auth_name_ok(big));
    big[LP_I3AUTH_NAME_MAX] = '\0';
    assert_true(lp_i3auth_name_ok(big));
}

/* ---- a key pair in temp files ---- */

struct files {
    char dir[64], priv[96], pub[96], users[96];
};

static void write_key(EVP_PKEY *k, const char *path, bool private_key)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(private_key ? PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL)
                            : PEM_write_PUBKEY(f, k));
    fclose(f);
}

static int make_files(void **state)
{
    static struct files fs;
    snprintf(fs.dir, sizeof(fs.dir), "/tmp/lp-i3auth-XXXXXX");
    assert_non_null(mkdtemp(fs.dir));
    snprintf(fs.priv, sizeof(fs.priv), "%s/priv.pem", fs.dir);
    snprintf(fs.pub, sizeof(fs.pub), "%s/pub.pem", fs.dir);
    snprintf(fs.users, sizeof(fs.users), "%s/users.csv", fs.dir);
    EVP_PKEY *k = EVP_RSA_gen(2048);
    assert_non_null(k);
    write_key(k, fs.priv, true);
    write_key(k, fs.pub, false);
    EVP_PKEY_free(k);
    FILE *f = fopen(fs.users, "w");
    char h[65], hp[65];
    lp_i3auth_hash_hex("mario", "rossi", h);
    lp_i3auth_hash_hex("peach", "rossi", hp);
    fprintf(f, "# comment\nno comma here\nmario,%s\r\npeach,%s,extra\n", h, hp);
    fclose(f);
    *state = &fs;
    return 0;
}

static int remove_files(void **state)
{
    struct files *fs = *state;
    unlink(fs->priv);
    unlink(fs->pub);
    unlink(fs->users);
    rmdir(fs->dir);
    return 0;
}

static bool check_token(struct lp_i3auth_server *s, const char *tok, int64_t now, char *why,
                        size_t whylen)
{
    char user[LP_I3AUTH_NAME_MAX + 1];
    return lp_i3auth_server_check(s, tok, strlen(tok), now, user, why, whylen);
}

static void round_trip(void **state)
{
    struct files *fs = *state;
    char err[300], why[300], user[LP_I3AUTH_NAME_MAX + 1];
    const int64_t now = 1796044518;
    struct lp_i3auth_server *s = lp_i3auth_server_new(fs->priv, fs->users, 10, false, err, sizeof(err));
    assert_non_null(s);
    for (int pad = 0; pad < 2; pad++) {
        struct lp_i3auth_client *c = lp_i3auth_client_new(fs->pub, "mario", "rossi",
                                                          pad ? LP_I3AUTH_PKCS1 : LP_I3AUTH_OAEP,
                                                          err, sizeof(err));
        assert_non_null(c);
        char *tok = lp_i3auth_client_token(c, now + pad, err, sizeof(err));
        assert_non_null(tok);
        assert_int_equal(strlen(tok), 344);
        assert_true(lp_i3auth_server_check(s, tok, strlen(tok), now, user, why, sizeof(why)));
        assert_string_equal(user, "mario");
        /* the same token again: a replay */
        assert_false(check_token(s, tok, now + 1, why, sizeof(why)));
        assert_non_null(strstr(why, "replay"));
        free(tok);
        /* 11 s off either way, with the threshold 10 */
        tok = lp_i3auth_client_token(c, now - 11, err, sizeof(err));
        assert_false(check_token(s, tok, now, why, sizeof(why)));
        assert_non_null(strstr(why, "s from the server's"));
        free(tok);
        tok = lp_i3auth_client_token(c, now + 11, err, sizeof(err));
        assert_false(check_token(s, tok, now, why, sizeof(why)));
        free(tok);
        lp_i3auth_client_free(c);
    }
    struct lp_i3auth_client *c = lp_i3auth_client_new(fs->pub, "mario", "rossx", LP_I3AUTH_OAEP, err, sizeof(err));
    char *tok = lp_i3auth_client_token(c, now, err, sizeof(err));
    assert_false(check_token(s, tok, now, why, sizeof(why)));
    assert_string_equal(why, "wrong password");
    free(tok);
    lp_i3auth_client_free(c);
    c = lp_i3auth_client_new(fs->pub, "luigi", "rossi", LP_I3AUTH_OAEP, err, sizeof(err));
    tok = lp_i3auth_client_token(c, now, err, sizeof(err));
    assert_false(check_token(s, tok, now, why, sizeof(why)));
    assert_string_equal(why, "user not in the authorized users file");
    free(tok);
    lp_i3auth_client_free(c);
    /* a third field after the hash is ignored, as iperf3's strtok does; "\r\n" ends a line */
    c = lp_i3auth_client_new(fs->pub, "peach", "rossi", LP_I3AUTH_PKCS1, err, sizeof(err));
    tok = lp_i3auth_client_token(c, now, err, sizeof(err));
    assert_true(check_token(s, tok, now, why, sizeof(why)));
    free(tok);
    lp_i3auth_client_free(c);
    lp_i3auth_server_free(s);

    /* a --use-pkcs1-padding server refuses OAEP */
    s = lp_i3auth_server_new(fs->priv, fs->users, 10, true, err, sizeof(err));
    c = lp_i3auth_client_new(fs->pub, "mario", "rossi", LP_I3AUTH_OAEP, err, sizeof(err));
    tok = lp_i3auth_client_token(c, now, err, sizeof(err));
    assert_false(check_token(s, tok, now, why, sizeof(why)));
    assert_non_null(strstr(why, "PKCS#1 v1.5 only"));
    free(tok);
    lp_i3auth_client_free(c);
    /* garbage of every shape */
    const char *junk[] = {"", "A", "QUJD", "====", "AB=C", "!!!!", "AAAA\nAAA"};
    for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
        assert_false(check_token(s, junk[i], now, why, sizeof(why)));
        assert_true(why[0] != '\0');
    }
    char big[LP_I3AUTH_TOKEN_MAX + 8];
    memset(big, 'A', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    assert_false(check_token(s, big, now, why, sizeof(why)));
    big[344] = '\0'; /* one block of zeros: decrypts to nothing */
    assert_false(check_token(s, big, now, why, sizeof(why)));
    lp_i3auth_server_free(s);
}

static void load_errors(void **state)
{
    struct files *fs = *state;
    char err[300];
    assert_null(lp_i3auth_server_new(fs->pub, fs->users, 10, false, err, sizeof(err)));
    assert_non_null(strstr(err, "private key"));
    assert_null(lp_i3auth_server_new(fs->priv, "/nonexistent/users", 10, false, err, sizeof(err)));
    assert_non_null(strstr(err, "authorized users"));
    assert_null(lp_i3auth_client_new(fs->priv, "mario", "rossi", LP_I3AUTH_OAEP, err, sizeof(err)));
    assert_non_null(strstr(err, "public key"));
    assert_null(lp_i3auth_client_new(fs->pub, "ma rio", "rossi", LP_I3AUTH_OAEP, err, sizeof(err)));
    assert_non_null(strstr(err, "without spaces"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hash_is_stock),
        cmocka_unit_test(text_is_stock),
        cmocka_unit_test(text_parses_like_sscanf),
        cmocka_unit_test(names),
        cmocka_unit_test(round_trip),
        cmocka_unit_test(load_errors),
    };
    return cmocka_run_group_tests(tests, make_files, remove_files);
}
