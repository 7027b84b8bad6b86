/*
 * Reference for apps/vector-api/src/tables/partition.spec.ts: what NGINX's split_clients
 * picks for a value, with NGINX's own code copied verbatim (nginx/nginx at 3f6f7824d4e2,
 * 2026-08-21): ngx_murmur_hash2 from src/core/ngx_murmurhash.c, the bounds and the lookup
 * from src/http/modules/ngx_http_split_clients_module.c. Shares are hundredths of a percent
 * as ngx_atofp(…, 2) reads them; 0 stands for "*".
 *
 *   gcc -O2 -o /tmp/split-clients-reference scripts/vector-partitions/split-clients-reference.c
 *   /tmp/split-clients-reference <n> <name>...     prints "<name> <hash> <part>" per name
 *   /tmp/split-clients-reference <n> --bounds      prints the parts' upper bounds (0: "*")
 *
 * The n parts are those of splitClientsParts(n) (partition.ts): part k ends at 10000·k/n
 * rounded down, the last is written "*".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned char u_char;

uint32_t
ngx_murmur_hash2(u_char *data, size_t len)
{
    uint32_t  h, k;

    h = 0 ^ len;

    while (len >= 4) {
        k  = data[0];
        k |= data[1] << 8;
        k |= data[2] << 16;
        k |= data[3] << 24;

        k *= 0x5bd1e995;
        k ^= k >> 24;
        k *= 0x5bd1e995;

        h *= 0x5bd1e995;
        h ^= k;

        data += 4;
        len -= 4;
    }

    switch (len) {
    case 3:
        h ^= data[2] << 16;
        /* fall through */
    case 2:
        h ^= data[1] << 8;
        /* fall through */
    case 1:
        h ^= data[0];
        h *= 0x5bd1e995;
    }

    h ^= h >> 13;
    h *= 0x5bd1e995;
    h ^= h >> 15;

    return h;
}

int
main(int argc, char **argv)
{
    uint32_t  percent[64], sum, last, hash;
    int       n, i, a;

    if (argc < 3 || (n = atoi(argv[1])) < 1 || n > 64) {
        fprintf(stderr, "usage: %s <n 1..64> <name>...\n", argv[0]);
        return 2;
    }

    for (i = 0; i < n; i++) {
        percent[i] = (i == n - 1) ? 0 : 10000 * (i + 1) / n - 10000 * i / n;
    }

    /* ngx_conf_split_clients_block */
    sum = 0;
    last = 0;
    for (i = 0; i < n; i++) {
        sum = percent[i] ? sum + percent[i] : 10000;
        if (sum == 10000) {
            percent[i] = 0;
        }
        if (percent[i]) {
            last += percent[i] * (uint64_t) 0xffffffff / 10000;
            percent[i] = last;
        }
    }

    if (strcmp(argv[2], "--bounds") == 0) {
        for (i = 0; i < n; i++) {
            printf("%u\n", percent[i]);
        }
        return 0;
    }

    for (a = 2; a < argc; a++) {
        hash = ngx_murmur_hash2((u_char *) argv[a], strlen(argv[a]));
        /* ngx_http_split_clients_variable */
        for (i = 0; i < n; i++) {
            if (hash < percent[i] || percent[i] == 0) {
                break;
            }
        }
        printf("%s %u %d\n", argv[a], hash, i + 1);
    }

    return 0;
}
