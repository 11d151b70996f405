package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Filesystems where a market file is not safe.
//
// SQLite's WAL mode needs a shared-memory index that every process maps
// (the -shm file) and byte-range locks that every process sees. On a
// network share neither holds across machines, and on several not even
// across processes of one machine: two Rynek processes there could both
// think they write alone, and the file would be damaged. So Open refuses
// a market on one of these, before it creates anything.
var networkFilesystems = map[int64]string{
	unix.NFS_SUPER_MAGIC:   "NFS",
	unix.SMB_SUPER_MAGIC:   "SMB",
	unix.CIFS_SUPER_MAGIC:  "SMB/CIFS",
	unix.SMB2_SUPER_MAGIC:  "SMB2",
	unix.V9FS_MAGIC:        "9p",
	unix.FUSE_SUPER_MAGIC:  "FUSE",
	unix.CEPH_SUPER_MAGIC:  "Ceph",
	unix.AFS_FS_MAGIC:      "AFS",
	unix.AFS_SUPER_MAGIC:   "AFS",
	unix.CODA_SUPER_MAGIC:  "Coda",
	unix.NCP_SUPER_MAGIC:   "NCP",
	0x0BD00BD0:             "Lustre",
	0x786f4256:             "VirtualBox shared folder",
	unix.OCFS2_SUPER_MAGIC: "OCFS2",
}

// checkFilesystem refuses a market file whose folder is on a network
// filesystem (networkFilesystems says why).
func checkFilesystem(path string) error {
	dir := filepath.Dir(path)
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // creating the file says so, naming it
		}
		return fmt.Errorf("read the filesystem of %s: %w", dir, err)
	}
	if name, ok := networkFilesystems[int64(st.Type)]; ok {
		return fmt.Errorf("%s is on a network filesystem (%s), where SQLite's locks and shared index do not hold "+
			"across processes, so two of them could damage it: put the market on a local disk, "+
			"or share a market over a network with PostgreSQL (--db postgres://…)", path, name)
	}
	return nil
}
