/* mpp/pshmemx.h: the path older OpenSHMEM and SGI SHMEM programs include (bale, for one); the same
 * declarations as <pshmemx.h>. */
#include <pshmemx.h>
