// CCiaoShim: what Glibc's Swift import lacks, as plain functions and types.
//
// The CMSG_* and NLMSG_* macros (RFC 3542 §20, netlink(7)) are expressions Swift cannot import, and
// <sys/eventfd.h>, <linux/netlink.h>, <linux/rtnetlink.h>, `struct in6_pktinfo` and recvmmsg(2) (the
// last two hidden behind _GNU_SOURCE in glibc) are not part of the Glibc module. Everything else
// stays in Swift.
#ifndef CCIAOSHIM_H
#define CCIAOSHIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <netinet/in.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/// `struct in6_pktinfo` (RFC 3542 §6): the IPV6_PKTINFO ancillary data, same layout as glibc's.
struct ciao_in6_pktinfo {
    struct in6_addr ipi6_addr;
    unsigned int ipi6_ifindex;
};

/// `struct mmsghdr` (recvmmsg(2)): one message header and the length the kernel received into it.
struct ciao_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};

/// recvmmsg(2) without a timeout: fills up to `count` messages; returns how many, or -1 and errno.
int ciao_recvmmsg(int fd, struct ciao_mmsghdr *messages, unsigned int count, int flags);

/// CMSG_SPACE(length): the bytes one control message with `length` bytes of data takes, padded.
size_t ciao_cmsg_space(size_t length);

/// CMSG_LEN(length): the `cmsg_len` value for a control message with `length` bytes of data.
size_t ciao_cmsg_len(size_t length);

/// CMSG_FIRSTHDR(message): the first control message header, or NULL when there is none.
struct cmsghdr *ciao_cmsg_firsthdr(struct msghdr *message);

/// CMSG_NXTHDR(message, header): the control message after `header`, or NULL at the end.
struct cmsghdr *ciao_cmsg_nxthdr(struct msghdr *message, struct cmsghdr *header);

/// CMSG_DATA(header): the start of a control message's data.
unsigned char *ciao_cmsg_data(struct cmsghdr *header);

/// What one read from a NETLINK_ROUTE socket contained (netlink(7), rtnetlink(7)).
typedef struct {
    /// RTM_NEWLINK, RTM_DELLINK, RTM_NEWADDR or RTM_DELADDR messages seen.
    unsigned int changes;
    /// NLMSG_ERROR messages seen (for example an overrun reported in-band).
    unsigned int errors;
    /// True when a header's length ran past the buffer (NLMSG_OK failed before the end).
    int malformed;
} ciao_netlink_summary;

/// Walks the netlink messages in `buffer` with NLMSG_OK/NLMSG_NEXT and counts link/address changes.
ciao_netlink_summary ciao_netlink_summarize(const void *buffer, size_t length);

#endif
