/*
 * shmemx.h: ferroshmem extensions to OpenSHMEM 1.5. Includes shmem.h, so a program needs only
 * this header to use both. Every name declared here starts with shmemx_ / SHMEMX_.
 *
 * Sections:
 *   1. Library identification
 *   2. Teams (to come)
 */
#ifndef FERROSHMEM_SHMEMX_H
#define FERROSHMEM_SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ===================================================================================== */
/* 1. Library identification                                                             */
/* ===================================================================================== */

/* Defined when the library is ferroshmem, for programs that use its extensions. */
#define SHMEMX_FERROSHMEM 1

/* ===================================================================================== */
/* 2. Teams: ferroshmem extensions (none yet)                                             */
/* ===================================================================================== */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FERROSHMEM_SHMEMX_H */
