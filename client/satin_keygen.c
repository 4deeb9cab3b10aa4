/*
 * satin_keygen.c - satin-keygen: make a CURVE key pair for a node or a
 * client.  NAME.key holds both halves (CZMQ's certificate format, mode
 * 0600: satind refuses a secret key others can read); NAME.pub holds the
 * public half; the line to paste into the topology goes to stdout.
 */
#include <czmq.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: satin-keygen [--dir DIR] [--force] NAME\n"
            "Make a CURVE key pair for node (or client) NAME: DIR/NAME.key, the secret key\n"
            "(mode 0600; satind reads it with --key, from $CREDENTIALS_DIRECTORY/satind.key,\n"
            "from the topology's keys directory or /etc/satin/keys/NAME.key), and\n"
            "DIR/NAME.pub, the public key.  Prints the public key as the topology's\n"
            "'public_key:' line.\n"
            "\n"
            "  -d, --dir DIR   where to write the files (default: the current directory)\n"
            "  -f, --force     replace existing files\n"
            "  -h, --help      this help\n"
            "  -V, --version   the version\n");
}

static int name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 63)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-", s[i]))
            return 0;
    return s[0] != '.';
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"dir", required_argument, NULL, 'd'},
        {"force", no_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    const char *dir = ".";
    int force = 0, c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":d:fhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': dir = optarg; break;
        case 'f': force = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("satin-keygen %s\n", SATIN_VERSION); return 0;
        case ':':
            fprintf(stderr, "satin-keygen: option %s needs a value\n", argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "satin-keygen: unknown option '%s' (see --help)\n", argv[optind - 1]);
            return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "satin-keygen: give exactly one NAME (see --help)\n");
        return 2;
    }
    const char *name = argv[optind];
    if (!name_ok(name)) {
        fprintf(stderr, "satin-keygen: '%s' is not a node name (1 to 63 characters from "
                        "A-Z a-z 0-9 _ . -, not starting with '.')\n", name);
        return 2;
    }
    char key[4096], pub[4096];
    if (snprintf(key, sizeof key, "%s/%s.key", dir, name) >= (int)sizeof key ||
        snprintf(pub, sizeof pub, "%s/%s.pub", dir, name) >= (int)sizeof pub) {
        fprintf(stderr, "satin-keygen: directory name too long\n");
        return 2;
    }
    struct stat st;
    if (!force && (stat(key, &st) == 0 || stat(pub, &st) == 0)) {
        fprintf(stderr, "satin-keygen: %s or %s exists already (use --force to replace it)\n",
                key, pub);
        return 1;
    }
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
        fprintf(stderr, "satin-keygen: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    zsys_handler_set(NULL);
    zcert_t *cert = zcert_new();
    if (!cert) {
        fprintf(stderr, "satin-keygen: cannot make a key pair\n");
        return 1;
    }
    zcert_set_meta(cert, "name", "%s", name);
    /* The secret file is created private, not made private afterwards. */
    unlink(key);
    mode_t old = umask(0077);
    int rc = zcert_save_secret(cert, key);
    umask(old);
    if (rc == 0)
        rc = chmod(key, 0600);
    if (rc == 0)
        rc = zcert_save_public(cert, pub);
    if (rc != 0) {
        fprintf(stderr, "satin-keygen: cannot write %s / %s: %s\n", key, pub, strerror(errno));
        zcert_destroy(&cert);
        return 1;
    }
    printf("public_key: \"%s\"\n", zcert_public_txt(cert));
    fprintf(stderr, "satin-keygen: wrote %s (secret, mode 0600) and %s\n", key, pub);
    zcert_destroy(&cert);
    zsys_shutdown();
    return 0;
}
