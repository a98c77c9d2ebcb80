/*
 * ferroshmem_pnames.h (no include guard: included once per routine list): declares the
 * routines of the list FERROSHMEM_PNAMES_OF names ("ferroshmem_routines.h" or
 * "ferroshmemx_routines.h") under their profiling names (p + name), for pshmem.h and
 * pshmemx.h.
 */
#ifdef __cplusplus
extern "C" {
#endif

#undef FERROSHMEM_API
#define FERROSHMEM_API(NAME) p##NAME
#include FERROSHMEM_PNAMES_OF
#undef FERROSHMEM_API
#define FERROSHMEM_API(NAME) NAME

#ifdef __cplusplus
} /* extern "C" */
#endif
#undef FERROSHMEM_PNAMES_OF
