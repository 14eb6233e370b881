#ifndef FINGERLOCK_CFPRINT_SHIM_H
#define FINGERLOCK_CFPRINT_SHIM_H
#include <fprint.h>

/* Only what Swift cannot reach by itself: GLib macros. No logic lives here. */

/* g_ptr_array_index is a macro. */
static inline gpointer fl_ptr_array_index(GPtrArray *array, guint index) {
    return g_ptr_array_index(array, index);
}

/* A GPtrArray that unrefs its GObject elements when it is freed (identify galleries). */
static inline GPtrArray *fl_object_array_new(void) {
    return g_ptr_array_new_with_free_func(g_object_unref);
}

#endif
