/*
 * records.c: events as records in client buffers (both transports share the format).
 * A record is a 24-byte header (total size, type, metadata count, payload bytes), the metadata
 * integers, then the payload padded to 8 bytes, so every record, its metadata and its payload
 * stay 8-byte aligned in a buffer whose start is.
 */
#include "epx_internal.h"

#include <string.h>

static int64_t round8(int64_t n)
{
    return (n + 7) & ~(int64_t)7;
}

int64_t epx_record_size(int meta_count, int64_t bytes)
{
    return (int64_t)sizeof(struct epx_record_header) + 8 * (int64_t)meta_count + round8(bytes);
}

/* Copies `n` bytes to offset `at` of a ring of `ring_bytes`, wrapping at its end; returns the
 * offset after them. */
static int64_t ring_copy(char *ring, int64_t ring_bytes, int64_t at, const void *src, int64_t n)
{
    int64_t first = n < ring_bytes - at ? n : ring_bytes - at;
    if (first > 0)
        memcpy(ring + at, src, (size_t)first);
    if (n > first)
        memcpy(ring, (const char *)src + first, (size_t)(n - first));
    return (at + n) % ring_bytes;
}

void epx_record_write(char *ring, int64_t ring_bytes, int64_t at, int type, const int64_t *meta,
                      int meta_count, const void *data, int64_t bytes)
{
    struct epx_record_header h = {
        .total = (uint32_t)epx_record_size(meta_count, bytes),
        .type = type,
        .meta_count = meta_count,
        .reserved = 0,
        .bytes = bytes,
    };
    static const char zeros[8];
    at %= ring_bytes;
    at = ring_copy(ring, ring_bytes, at, &h, sizeof h);
    if (meta_count > 0)
        at = ring_copy(ring, ring_bytes, at, meta, 8 * (int64_t)meta_count);
    if (bytes > 0)
        at = ring_copy(ring, ring_bytes, at, data, bytes);
    ring_copy(ring, ring_bytes, at, zeros, round8(bytes) - bytes);
}

int64_t epx_record_read(const char *buf, int64_t avail, EPX_Event *event)
{
    struct epx_record_header h;
    if (avail < (int64_t)sizeof h)
        return 0;
    memcpy(&h, buf, sizeof h);
    if (h.meta_count < 0 || h.meta_count > EPX_MAX_META || h.bytes < 0 || h.bytes > avail ||
        (int64_t)h.total != epx_record_size(h.meta_count, h.bytes) || (int64_t)h.total > avail)
        return 0;
    event->type = h.type;
    event->meta_count = h.meta_count;
    event->reserved = 0;
    event->meta = (const int64_t *)(const void *)(buf + sizeof h);
    event->bytes = h.bytes;
    event->data = buf + sizeof h + 8 * (int64_t)h.meta_count;
    return h.total;
}
