/*
 * The baseline for bench/verify-bench.sh: the least a program can do to verify one finger with
 * libfprint. `verify-c verify FILE` opens the first device, deserializes the template in FILE,
 * verifies one touch and closes the device; exit 0 on a match, 1 on no match, 2 on an error.
 * `verify-c enroll FILE` (set-up, not timed) enrolls the right index finger into FILE.
 * The device comes from the environment (FP_VIRTUAL_DEVICE=SOCKET for libfprint's virtual_device).
 */
#include <fprint.h>
#include <stdio.h>
#include <string.h>

static int fail(const char *what, GError *error) {
    fprintf(stderr, "verify-c: %s: %s\n", what, error ? error->message : "failed");
    g_clear_error(&error);
    return 2;
}

static int enroll(FpDevice *device, const char *path) {
    GError *error = NULL;
    FpPrint *draft = fp_print_new(device);
    fp_print_set_finger(draft, FP_FINGER_RIGHT_INDEX);
    fp_print_set_username(draft, g_get_user_name());
    FpPrint *print = fp_device_enroll_sync(device, draft, NULL, NULL, NULL, &error);
    if (print == NULL) return fail("enroll", error);
    guchar *bytes = NULL;
    gsize length = 0;
    gboolean saved = fp_print_serialize(print, &bytes, &length, &error) &&
                     g_file_set_contents(path, (const gchar *) bytes, (gssize) length, &error);
    g_free(bytes);
    g_object_unref(print);
    return saved ? 0 : fail("save", error);
}

static int verify(FpDevice *device, const char *path) {
    GError *error = NULL;
    gchar *bytes = NULL;
    gsize length = 0;
    if (!g_file_get_contents(path, &bytes, &length, &error)) return fail("read", error);
    FpPrint *print = fp_print_deserialize((const guchar *) bytes, length, &error);
    g_free(bytes);
    if (print == NULL) return fail("deserialize", error);
    gboolean match = FALSE;
    gboolean done = fp_device_verify_sync(device, print, NULL, NULL, NULL, &match, NULL, &error);
    g_object_unref(print);
    if (!done) return fail("verify", error);
    puts(match ? "match" : "no-match");
    return match ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "verify") != 0 && strcmp(argv[1], "enroll") != 0)) {
        fprintf(stderr, "usage: verify-c verify|enroll TEMPLATE-FILE\n");
        return 64;
    }
    GError *error = NULL;
    FpContext *context = fp_context_new();
    GPtrArray *devices = fp_context_get_devices(context);
    if (devices == NULL || devices->len == 0) {
        g_object_unref(context);
        return fail("no device", NULL);
    }
    FpDevice *device = g_ptr_array_index(devices, 0);
    if (!fp_device_open_sync(device, NULL, &error)) {
        g_object_unref(context);
        return fail("open", error);
    }
    int status = strcmp(argv[1], "verify") == 0 ? verify(device, argv[2]) : enroll(device, argv[2]);
    fp_device_close_sync(device, NULL, NULL);
    g_object_unref(context);
    return status;
}
