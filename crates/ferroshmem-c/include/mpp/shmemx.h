/* mpp/shmemx.h: the path older OpenSHMEM and SGI SHMEM programs include (bale, for one); the same
 * declarations as <shmemx.h>. */
#include <shmemx.h>
