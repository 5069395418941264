"""The arena's own cgroup folders, joined from /proc/self/mountinfo and /proc/self/cgroup (fabricated here)."""

from pathlib import Path

from arena.sandbox._cgroup import own_groups

# A podman container on a cgroup v1 host: each hierarchy is mounted at the container's own group.
CONTAINER_MOUNTINFO = """\
1191 1190 0:74 / /sys/fs/cgroup ro,nosuid,nodev,noexec - tmpfs tmpfs rw,mode=755
1203 1191 0:33 /libpod_parent/libpod-4f2a /sys/fs/cgroup/memory rw,nosuid,nodev master:15 - cgroup cgroup rw,memory
1204 1191 0:34 /libpod_parent/libpod-4f2a /sys/fs/cgroup/pids rw,nosuid master:16 - cgroup cgroup rw,pids
1205 1191 0:35 /libpod_parent/libpod-4f2a /sys/fs/cgroup/cpu,cpuacct rw,nosuid - cgroup cgroup rw,cpu,cpuacct
"""
CONTAINER_CGROUP = """\
11:memory:/libpod_parent/libpod-4f2a
10:pids:/libpod_parent/libpod-4f2a/worker
9:cpu,cpuacct:/libpod_parent/libpod-4f2a
0::/
"""


def test_in_a_container_the_mounts_root_is_not_joined_twice() -> None:
    groups, why = own_groups(CONTAINER_MOUNTINFO, CONTAINER_CGROUP)
    assert groups == {
        "memory": Path("/sys/fs/cgroup/memory"),
        "pids": Path("/sys/fs/cgroup/pids/worker"),
        "cpuacct": Path("/sys/fs/cgroup/cpu,cpuacct"),
        "cpu": Path("/sys/fs/cgroup/cpu,cpuacct"),  # mounted with cpuacct: background bots are weighted in it
    }
    assert why == {}


def test_on_a_host_the_group_is_below_the_mount_point() -> None:
    mountinfo = (
        "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
        "41 31 0:38 / /sys/fs/cgroup/unified\\040tree rw,relatime - cgroup2 cgroup2 rw\n"
    )
    cgroup = "4:memory:/ci/job-7\n0::/user.slice/session-1.scope\n"
    groups, _ = own_groups(mountinfo, cgroup)
    assert groups == {
        "memory": Path("/sys/fs/cgroup/memory/ci/job-7"),
        "": Path("/sys/fs/cgroup/unified tree/user.slice/session-1.scope"),
    }


def test_a_group_outside_the_mounted_part_is_said_unreachable() -> None:
    mountinfo = "1203 1191 0:33 /libpod_parent/libpod-4f2a /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
    groups, why = own_groups(mountinfo, "11:memory:/elsewhere\n")
    assert groups == {}
    assert why == {"memory": "the arena's group /elsewhere is outside the mounted /libpod_parent/libpod-4f2a"}
