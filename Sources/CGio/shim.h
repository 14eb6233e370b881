#ifndef FINGERLOCK_CGIO_SHIM_H
#define FINGERLOCK_CGIO_SHIM_H
#include <dlfcn.h>
#include <gio/gio.h>

/* GIO's D-Bus client, as fingerlockd asks logind who sits at the reader's seat and fingerlock asks
 * fprintd to verify (the SystemBus target). Only what Swift
 * cannot reach by itself: the library loaded at run time (as CFprint loads libfprint, which links
 * GIO, so the same copy is used) and GLib macros. No logic lives here. */

/* Every GIO and GLib function the SystemBus target calls. A function missing here is a compile
 * error, never a silent fallback. */
#define FL_GIO_FUNCTIONS(X) \
    X(g_dbus_address_get_for_bus_sync) X(g_dbus_connection_new_for_address_sync) \
    X(g_dbus_connection_call_sync) X(g_dbus_connection_call) X(g_dbus_connection_close_sync) \
    X(g_dbus_error_get_remote_error) \
    X(g_object_unref) X(g_error_free) X(g_free) \
    X(g_variant_new_string) X(g_variant_new_uint32) X(g_variant_new_tuple) X(g_variant_ref_sink) \
    X(g_variant_unref) X(g_variant_n_children) X(g_variant_get_child_value) X(g_variant_get_variant) \
    X(g_variant_is_of_type) X(g_variant_get_boolean) X(g_variant_get_uint32) X(g_variant_get_string) \
    X(g_variant_get_int32) X(g_dbus_connection_add_filter) X(g_dbus_connection_remove_filter) \
    X(g_dbus_message_get_message_type) X(g_dbus_message_get_member) X(g_dbus_message_get_interface) \
    X(g_dbus_message_get_path) X(g_dbus_message_get_sender) X(g_dbus_message_get_body) X(g_variant_ref)

typedef struct FLGioFunctions {
#define FL_GIO_FIELD(name) __typeof__(&name) _Nonnull name;
    FL_GIO_FUNCTIONS(FL_GIO_FIELD)
#undef FL_GIO_FIELD
} FLGioFunctions;

/* Opens GIO (which brings GLib) and fills `functions`. Returns NULL, or what went wrong (dlerror's
 * text, valid until the next dl call of this thread). The library stays loaded for the process's
 * life: GLib's types cannot be unloaded. */
static inline const char *_Nullable fl_gio_load(FLGioFunctions *_Nonnull functions) {
    void *library = dlopen("libgio-2.0.so.0", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
#define FL_GIO_RESOLVE(name) \
    functions->name = (__typeof__(&name))dlsym(library, #name); \
    if (functions->name == NULL) return dlerror();
    FL_GIO_FUNCTIONS(FL_GIO_RESOLVE)
#undef FL_GIO_RESOLVE
    return NULL;
}

/* G_VARIANT_TYPE_* are macros over casts of strings. */
static inline const GVariantType *_Nonnull fl_variant_type(const char *_Nonnull text) {
    return (const GVariantType *)text;
}

/* GError's message, read here: GError's header is textually CFprint's too, and Swift gives its fields
 * to whichever module it saw first. */
static inline const char *_Nullable fl_error_message(const GError *_Nonnull error) {
    return error->message;
}

#endif
