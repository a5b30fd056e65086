// recvmmsg(2) and struct mmsghdr are GNU extensions in glibc's <sys/socket.h>.
#define _GNU_SOURCE
#include "CCiaoShim.h"

_Static_assert(sizeof(struct ciao_mmsghdr) == sizeof(struct mmsghdr), "struct mmsghdr layout");
_Static_assert(offsetof(struct ciao_mmsghdr, msg_len) == offsetof(struct mmsghdr, msg_len), "struct mmsghdr layout");

int ciao_recvmmsg(int fd, struct ciao_mmsghdr *messages, unsigned int count, int flags) {
    return recvmmsg(fd, (struct mmsghdr *)messages, count, flags, NULL);
}

size_t ciao_cmsg_space(size_t length) { return CMSG_SPACE(length); }

size_t ciao_cmsg_len(size_t length) { return CMSG_LEN(length); }

struct cmsghdr *ciao_cmsg_firsthdr(struct msghdr *message) { return CMSG_FIRSTHDR(message); }

struct cmsghdr *ciao_cmsg_nxthdr(struct msghdr *message, struct cmsghdr *header) {
    return CMSG_NXTHDR(message, header);
}

unsigned char *ciao_cmsg_data(struct cmsghdr *header) { return CMSG_DATA(header); }

ciao_netlink_summary ciao_netlink_summarize(const void *buffer, size_t length) {
    ciao_netlink_summary summary = {0, 0, 0};
    // NLMSG_OK/NLMSG_NEXT take an int-typed remaining length; a datagram is far below INT_MAX.
    int remaining = length > 0x7fffffff ? 0x7fffffff : (int)length;
    const struct nlmsghdr *header = (const struct nlmsghdr *)buffer;
    for (; NLMSG_OK(header, remaining); header = NLMSG_NEXT(header, remaining)) {
        switch (header->nlmsg_type) {
        case RTM_NEWLINK:
        case RTM_DELLINK:
        case RTM_NEWADDR:
        case RTM_DELADDR:
            summary.changes += 1;
            break;
        case NLMSG_ERROR:
            summary.errors += 1;
            break;
        default:
            break;
        }
    }
    if (remaining > 0) summary.malformed = 1;
    return summary;
}
