#ifndef FERROSHMEM_SHMEMX_H
#define FERROSHMEM_SHMEMX_H
#include <shmem.h>
#endif
