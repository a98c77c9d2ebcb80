/*
 * pshmemx.h: the profiling names (pshmemx_NAME) of the routines of shmemx.h, as pshmem.h gives
 * those of shmem.h. Includes shmemx.h and pshmem.h.
 */
#ifndef FERROSHMEM_PSHMEMX_H
#define FERROSHMEM_PSHMEMX_H

#include <shmemx.h>
#include <pshmem.h>

#define FERROSHMEM_PNAMES_OF "ferroshmemx_routines.h"
#include "ferroshmem_pnames.h"

#endif /* FERROSHMEM_PSHMEMX_H */
