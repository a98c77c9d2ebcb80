/* mpp/shmem.h: the path older OpenSHMEM and SGI SHMEM programs include (bale, for one); the same
 * declarations as <shmem.h>. */
#include <shmem.h>
