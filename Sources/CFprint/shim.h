#ifndef FINGERLOCK_CFPRINT_SHIM_H
#define FINGERLOCK_CFPRINT_SHIM_H
#include <dlfcn.h>
#include <fprint.h>

/* Only what Swift cannot reach by itself: GLib macros, and libfprint loaded at run time. No logic
 * lives here.
 *
 * Nothing links libfprint: its 25 libraries (GLib, GIO, GUsb, udev, pixman, NSS, ...) would be mapped
 * and bound at every start of the CLI, `--help` and system-mode commands included, which never scan.
 * The headers give the types; the functions are found with dlsym in a table loaded on first use. */

/* Every libfprint and GLib function fingerlock calls. A function missing here is a link error
 * (undefined symbol), never a silent fallback. */
#define FL_FPRINT_FUNCTIONS(X) \
    X(fp_context_new) X(fp_context_enumerate) X(fp_context_get_devices) \
    X(fp_device_get_name) X(fp_device_get_driver) X(fp_device_get_device_id) X(fp_device_get_scan_type) \
    X(fp_device_get_nr_enroll_stages) X(fp_device_get_features) X(fp_device_is_open) \
    X(fp_device_open_sync) X(fp_device_close_sync) X(fp_device_verify_sync) X(fp_device_identify_sync) \
    X(fp_device_enroll_sync) X(fp_device_list_prints_sync) X(fp_device_delete_print_sync) \
    X(fp_device_clear_storage_sync) X(fp_device_error_quark) X(fp_device_retry_quark) \
    X(fp_print_new) X(fp_print_set_finger) X(fp_print_set_username) X(fp_print_set_enroll_date) \
    X(fp_print_serialize) X(fp_print_deserialize) X(fp_print_compatible) X(fp_print_equal) \
    X(fp_print_get_finger) X(fp_print_get_username) X(fp_print_get_enroll_date) X(fp_print_get_driver) \
    X(fp_print_get_device_id) \
    X(g_object_ref) X(g_object_unref) X(g_free) X(g_error_free) X(g_error_new_literal) \
    X(g_quark_to_string) X(g_quark_try_string) X(g_quark_from_string) X(g_io_error_quark) \
    X(g_ptr_array_new_with_free_func) X(g_ptr_array_add) X(g_ptr_array_unref) \
    X(g_main_context_iteration) X(g_timeout_add_full) X(g_source_remove) X(g_log_set_writer_func) \
    X(g_cancellable_new) X(g_cancellable_cancel) \
    X(g_date_new) X(g_date_free) X(g_date_set_time_t) X(g_date_valid) X(g_date_get_year) \
    X(g_date_get_month) X(g_date_get_day)

/* One field per function, named and typed as the function itself (__typeof__ reads the declaration
 * and references no symbol). */
typedef struct FLFprintFunctions {
#define FL_FPRINT_FIELD(name) __typeof__(&name) _Nonnull name;
    FL_FPRINT_FUNCTIONS(FL_FPRINT_FIELD)
#undef FL_FPRINT_FIELD
} FLFprintFunctions;

/* Opens libfprint (which brings GLib) and fills `functions`. Returns NULL, or what went wrong
 * (dlerror's text, valid until the next dl call of this thread). The library stays loaded for the
 * process's life: its types are registered with GLib and cannot be unloaded. */
static inline const char *_Nullable fl_fprint_load(FLFprintFunctions *_Nonnull functions) {
    void *library = dlopen("libfprint-2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
#define FL_FPRINT_RESOLVE(name) \
    functions->name = (__typeof__(&name))dlsym(library, #name); \
    if (functions->name == NULL) return dlerror();
    FL_FPRINT_FUNCTIONS(FL_FPRINT_RESOLVE)
#undef FL_FPRINT_RESOLVE
    return NULL;
}

/* g_ptr_array_index is a macro. */
static inline gpointer _Nullable fl_ptr_array_index(GPtrArray *_Nonnull array, guint index) {
    return g_ptr_array_index(array, index);
}

#endif
