#ifndef FINGERLOCK_CTSS2_SHIM_H
#define FINGERLOCK_CTSS2_SHIM_H
#include <dlfcn.h>
#include <tss2/tss2_esys.h>
#include <tss2/tss2_tctildr.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>

/* Only what Swift cannot reach by itself: tpm2-tss loaded at run time. No logic lives here.
 *
 * Nothing links tpm2-tss: its libraries bring libcrypto, and mapping and binding them cost every
 * start of the CLI about 2.5 ms, for the commands that never touch a TPM (all of them unless the
 * passcode is bound). The headers give the types; the functions are found with dlsym in a table
 * loaded on first use. */

/* Every tpm2-tss function fingerlock calls. A function missing here is a link error (undefined
 * symbol), never a silent fallback. */
#define FL_TSS_FUNCTIONS(X) \
    X(Tss2_TctiLdr_Initialize) X(Tss2_TctiLdr_Finalize) \
    X(Esys_Initialize) X(Esys_Finalize) X(Esys_Free) X(Esys_FlushContext) X(Esys_TR_SetAuth) \
    X(Esys_CreatePrimary) X(Esys_StartAuthSession) X(Esys_TRSess_SetAttributes) X(Esys_Create) X(Esys_Load) \
    X(Esys_Unseal) X(Esys_GetCapability) X(Esys_PolicyPCR) X(Esys_PolicyAuthValue) X(Esys_PolicyGetDigest) \
    X(Tss2_MU_TPM2B_PUBLIC_Marshal) X(Tss2_MU_TPM2B_PUBLIC_Unmarshal) X(Tss2_MU_TPM2B_PRIVATE_Marshal) \
    X(Tss2_MU_TPM2B_PRIVATE_Unmarshal) X(Tss2_RC_Decode)

/* One field per function, named and typed as the function itself (__typeof__ reads the declaration
 * and references no symbol). */
typedef struct FLTSSFunctions {
#define FL_TSS_FIELD(name) __typeof__(&name) _Nonnull name;
    FL_TSS_FUNCTIONS(FL_TSS_FIELD)
#undef FL_TSS_FIELD
} FLTSSFunctions;

/* Opens tpm2-tss's ESAPI, TCTI loader, marshalling and response-code libraries and fills
 * `functions`. Returns NULL, or what went wrong (dlerror's text, valid until the next dl call of this
 * thread). The libraries stay loaded for the process's life. */
static inline const char *_Nullable fl_tss_load(FLTSSFunctions *_Nonnull functions) {
    static const char *const names[] = {
        "libtss2-esys.so.0", "libtss2-tctildr.so.0", "libtss2-mu.so.0", "libtss2-rc.so.0"};
    void *libraries[4];
    for (int i = 0; i < 4; i++) {
        libraries[i] = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (libraries[i] == NULL) return dlerror();
    }
#define FL_TSS_RESOLVE(name) \
    functions->name = NULL; \
    for (int i = 0; i < 4 && functions->name == NULL; i++) \
        functions->name = (__typeof__(&name))dlsym(libraries[i], #name); \
    if (functions->name == NULL) return "a tpm2-tss function is missing: " #name;
    FL_TSS_FUNCTIONS(FL_TSS_RESOLVE)
#undef FL_TSS_RESOLVE
    return NULL;
}

#endif
