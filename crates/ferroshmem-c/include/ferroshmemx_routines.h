/*
 * ferroshmemx_routines.h: every routine of shmemx.h, each named FERROSHMEM_API(shmemx_NAME).
 * Not for programs: shmemx.h includes it with shmemx_ names, pshmemx.h again with pshmemx_
 * names (as ferroshmem_routines.h for shmem.h). No include guard, for that reason.
 */

/* Arbitrary teams (section 2 of shmemx.h). */
int FERROSHMEM_API(shmemx_team_get_uniqueid)(shmemx_team_uniqueid_t *uniqueid);
int FERROSHMEM_API(shmemx_team_init)(shmem_team_t *team, shmemx_team_config_t *config, long config_mask,
                                     int npes, int pe_idx_in_team);

/* Split by color and key. */
int FERROSHMEM_API(shmemx_team_split_color)(shmem_team_t parent_team, int color, int key,
                                            const shmem_team_config_t *config, long config_mask,
                                            shmem_team_t *new_team);

/* Non-blocking creation. */
int FERROSHMEM_API(shmemx_team_split_strided_nb)(shmem_team_t parent_team, int start, int stride, int size,
                                                 const shmem_team_config_t *config, long config_mask,
                                                 shmem_team_t *new_team, shmemx_team_request_t *req);
int FERROSHMEM_API(shmemx_team_split_2d_nb)(shmem_team_t parent_team, int xrange,
                                            const shmem_team_config_t *xaxis_config, long xaxis_mask,
                                            shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                                            long yaxis_mask, shmem_team_t *yaxis_team, shmemx_team_request_t *req);
int FERROSHMEM_API(shmemx_team_split_color_nb)(shmem_team_t parent_team, int color, int key,
                                               const shmem_team_config_t *config, long config_mask,
                                               shmem_team_t *new_team, shmemx_team_request_t *req);
int FERROSHMEM_API(shmemx_team_init_nb)(shmem_team_t *team, shmemx_team_config_t *config, long config_mask,
                                        int npes, int pe_idx_in_team, shmemx_team_request_t *req);
int FERROSHMEM_API(shmemx_team_create_test)(shmemx_team_request_t req);
int FERROSHMEM_API(shmemx_team_create_wait)(shmemx_team_request_t req);

/* Team usage. */
int FERROSHMEM_API(shmemx_team_info)(shmemx_team_info_t *info);

/* The last shmem_pcontrol level. */
int FERROSHMEM_API(shmemx_pcontrol_level)(void);
