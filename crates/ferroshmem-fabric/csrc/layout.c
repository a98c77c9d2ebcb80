/* Prints the size and field offsets of every UCX/PMIx struct that src/ucp_sys.rs and
 * src/pmix_sys.rs declare by hand, and the value of every constant they use, one
 * "name value" line each; tests/layout.rs (via OUT_DIR/layout.txt) compares them. */
#include <stddef.h>
#include <stdio.h>
#include <ucp/api/ucp.h>
#include <pmix.h>

#define S(t) printf("size %s %zu\n", #t, sizeof(t))
#define O(t, f) printf("offset %s.%s %zu\n", #t, #f, offsetof(t, f))
#define C(c) printf("const %s %lld\n", #c, (long long)(c))
#define K(k) printf("key %s %s\n", #k, k)

int main(void) {
    /* UCX structs */
    S(ucs_cpu_set_t);
    S(ucs_sock_addr_t); O(ucs_sock_addr_t, addr); O(ucs_sock_addr_t, addrlen);
    S(ucp_err_handler_t); O(ucp_err_handler_t, cb); O(ucp_err_handler_t, arg);
    S(ucp_params_t);
    O(ucp_params_t, field_mask); O(ucp_params_t, features); O(ucp_params_t, request_size);
    O(ucp_params_t, request_init); O(ucp_params_t, request_cleanup); O(ucp_params_t, tag_sender_mask);
    O(ucp_params_t, mt_workers_shared); O(ucp_params_t, estimated_num_eps);
    O(ucp_params_t, estimated_num_ppn); O(ucp_params_t, name);
    S(ucp_worker_params_t);
    O(ucp_worker_params_t, field_mask); O(ucp_worker_params_t, thread_mode); O(ucp_worker_params_t, cpu_mask);
    O(ucp_worker_params_t, events); O(ucp_worker_params_t, user_data); O(ucp_worker_params_t, event_fd);
    O(ucp_worker_params_t, flags); O(ucp_worker_params_t, name); O(ucp_worker_params_t, am_alignment);
    O(ucp_worker_params_t, client_id);
    S(ucp_worker_attr_t);
    O(ucp_worker_attr_t, field_mask); O(ucp_worker_attr_t, thread_mode); O(ucp_worker_attr_t, address_flags);
    O(ucp_worker_attr_t, address); O(ucp_worker_attr_t, address_length); O(ucp_worker_attr_t, max_am_header);
    O(ucp_worker_attr_t, name); O(ucp_worker_attr_t, max_debug_string);
    S(ucp_ep_params_t);
    O(ucp_ep_params_t, field_mask); O(ucp_ep_params_t, address); O(ucp_ep_params_t, err_mode);
    O(ucp_ep_params_t, err_handler); O(ucp_ep_params_t, user_data); O(ucp_ep_params_t, flags);
    O(ucp_ep_params_t, sockaddr); O(ucp_ep_params_t, conn_request); O(ucp_ep_params_t, name);
    O(ucp_ep_params_t, local_sockaddr);
    S(ucp_mem_map_params_t);
    O(ucp_mem_map_params_t, field_mask); O(ucp_mem_map_params_t, address); O(ucp_mem_map_params_t, length);
    O(ucp_mem_map_params_t, flags); O(ucp_mem_map_params_t, prot); O(ucp_mem_map_params_t, memory_type);
    S(ucp_request_param_t);
    O(ucp_request_param_t, op_attr_mask); O(ucp_request_param_t, flags); O(ucp_request_param_t, request);
    O(ucp_request_param_t, cb); O(ucp_request_param_t, datatype); O(ucp_request_param_t, user_data);
    O(ucp_request_param_t, reply_buffer); O(ucp_request_param_t, memory_type);
    O(ucp_request_param_t, recv_info); O(ucp_request_param_t, memh);
    S(ucs_status_t); S(ucs_thread_mode_t); S(ucp_err_handling_mode_t); S(ucs_memory_type_t);
    S(ucp_atomic_op_t); S(ucp_datatype_t);

    /* UCX constants */
    C(UCP_API_MAJOR); C(UCP_API_MINOR);
    C(UCS_OK); C(UCS_INPROGRESS); C(UCS_ERR_BUSY); C(UCS_ERR_LAST); C(UCS_ERR_UNSUPPORTED);
    C(UCP_PARAM_FIELD_FEATURES); C(UCP_PARAM_FIELD_MT_WORKERS_SHARED);
    C(UCP_FEATURE_RMA); C(UCP_FEATURE_AMO32); C(UCP_FEATURE_AMO64); C(UCP_FEATURE_WAKEUP);
    C(UCP_WORKER_PARAM_FIELD_THREAD_MODE); C(UCP_WORKER_ATTR_FIELD_THREAD_MODE);
    C(UCS_THREAD_MODE_SINGLE); C(UCS_THREAD_MODE_SERIALIZED); C(UCS_THREAD_MODE_MULTI);
    C(UCP_EP_PARAM_FIELD_REMOTE_ADDRESS); C(UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE);
    C(UCP_ERR_HANDLING_MODE_NONE); C(UCP_ERR_HANDLING_MODE_PEER);
    C(UCP_EP_CLOSE_FLAG_FORCE);
    C(UCP_MEM_MAP_PARAM_FIELD_ADDRESS); C(UCP_MEM_MAP_PARAM_FIELD_LENGTH);
    C(UCP_OP_ATTR_FIELD_DATATYPE); C(UCP_OP_ATTR_FIELD_FLAGS); C(UCP_OP_ATTR_FIELD_REPLY_BUFFER);
    C(UCP_OP_ATTR_FLAG_NO_IMM_CMPL);
    C(UCP_DATATYPE_CONTIG); C(UCP_DATATYPE_SHIFT); C(ucp_dt_make_contig(1)); C(ucp_dt_make_contig(4));
    C(ucp_dt_make_contig(8));
    C(UCP_ATOMIC_OP_ADD); C(UCP_ATOMIC_OP_SWAP); C(UCP_ATOMIC_OP_CSWAP); C(UCP_ATOMIC_OP_AND);
    C(UCP_ATOMIC_OP_OR); C(UCP_ATOMIC_OP_XOR);

    /* PMIx structs */
    S(pmix_proc_t); O(pmix_proc_t, nspace); O(pmix_proc_t, rank);
    S(pmix_byte_object_t); O(pmix_byte_object_t, bytes); O(pmix_byte_object_t, size);
    S(pmix_value_t); O(pmix_value_t, type); O(pmix_value_t, data);
    O(pmix_value_t, data.flag); O(pmix_value_t, data.string); O(pmix_value_t, data.uint16);
    O(pmix_value_t, data.uint32); O(pmix_value_t, data.rank); O(pmix_value_t, data.bo);
    S(pmix_info_t); O(pmix_info_t, key); O(pmix_info_t, flags); O(pmix_info_t, value);
    S(pmix_status_t); S(pmix_rank_t); S(pmix_data_type_t); S(pmix_scope_t); S(pmix_info_directives_t);

    /* PMIx constants */
    C(PMIX_MAX_NSLEN); C(PMIX_MAX_KEYLEN); C(PMIX_RANK_WILDCARD);
    C(PMIX_SUCCESS); C(PMIX_ERR_NOT_FOUND);
    C(PMIX_UNDEF); C(PMIX_BOOL); C(PMIX_STRING); C(PMIX_UINT16); C(PMIX_UINT32); C(PMIX_PROC_RANK);
    C(PMIX_BYTE_OBJECT);
    C(PMIX_GLOBAL); C(PMIX_INFO_REQD);
    K(PMIX_JOB_SIZE); K(PMIX_LOCAL_RANK); K(PMIX_LOCAL_SIZE); K(PMIX_LOCAL_PEERS); K(PMIX_NODEID);
    K(PMIX_HOSTNAME); K(PMIX_COLLECT_DATA);
    return 0;
}
