//! Issue 27 (5): `ferroshmem_core::launch` hands out the job file's descriptor and a mapping of its
//! header; truncating the file through the descriptor made a read through the header a bus
//! error, from safe code. The file is sealed against shrinking, so the truncation fails.

use ferroshmem_core::launch::{JobFile, Layout};

#[test]
fn truncating_the_job_file_fails_and_the_header_still_reads() {
    let file = JobFile::create(Layout::new(2, 0, 1).unwrap()).unwrap();
    let header = file.map_header().unwrap();
    let alias = std::fs::File::from(file.fd().try_clone_to_owned().unwrap());
    let err = alias.set_len(0).expect_err("the job file shrank under its header mapping");
    assert_eq!(err.raw_os_error(), Some(libc::EPERM), "{err}");
    assert!(alias.metadata().unwrap().len() >= 4096);
    let view = header.view();
    assert_eq!(view.exit_request(), None);
    assert!(view.request_exit(1, 7));
    assert_eq!(view.exit_request().map(|r| (r.pe, r.status)), Some((1, 7)));
}
