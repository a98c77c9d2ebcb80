/* mpp/pshmem.h: the path older OpenSHMEM and SGI SHMEM programs include (bale, for one); the same
 * declarations as <pshmem.h>. */
#include <pshmem.h>
