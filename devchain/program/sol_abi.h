/*
 * The few pieces of the Solana program ABI that our programs use, written out here so the
 * program builds with a stock clang and no SDK. Layouts follow the Solana C SDK
 * (solana_sdk.h) and the runtime's serializer for BPFLoader2 / BPFLoaderUpgradeable
 * programs; every struct below is passed by address to a syscall, so field order and
 * sizes matter.
 *
 * Shared by mcd_token.c and reincarnation.c (see sol_common.h for the helpers).
 *
 * Input buffer handed to `entrypoint` (all integers little-endian):
 *   u64 num_accounts
 *   per account, either a duplicate marker      [u8 index of the earlier account][7 pad]
 *   or a full record (dup byte == 0xff):
 *     +0  u8  0xff          +1 u8 is_signer   +2 u8 is_writable   +3 u8 executable
 *     +4  u32 original data length (padding for us)
 *     +8  [32] key          +40 [32] owner    +72 u64 lamports    +80 u64 data_len
 *     +88 data[data_len], then 10240 bytes of realloc room, padded to 8, then u64 rent_epoch
 *   u64 instruction data length, instruction data, [32] program id
 */
#ifndef MCD_SOL_ABI_H
#define MCD_SOL_ABI_H

typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef _Bool bool;
#define true 1
#define false 0

#define SOL_NON_DUP_MARKER 0xff
#define SOL_MAX_PERMITTED_DATA_INCREASE 10240
#define SOL_ACCOUNT_STORAGE_OVERHEAD 128 /* bytes the rent formula adds to every account */

typedef struct {
    u8 x[32];
} SolPubkey;

/* Same layout as solana_sdk.h: the runtime reads it back during sol_invoke_signed_c. */
typedef struct {
    SolPubkey *key;
    u64 *lamports;
    u64 data_len;
    u8 *data;
    SolPubkey *owner;
    u64 rent_epoch;
    bool is_signer;
    bool is_writable;
    bool executable;
} SolAccountInfo;

typedef struct {
    SolPubkey *pubkey;
    bool is_writable;
    bool is_signer;
} SolAccountMeta;

typedef struct {
    SolPubkey *program_id;
    SolAccountMeta *accounts;
    u64 account_len;
    u8 *data;
    u64 data_len;
} SolInstruction;

typedef struct {
    const u8 *addr;
    u64 len;
} SolSignerSeed;

typedef struct {
    const SolSignerSeed *addr;
    u64 len;
} SolSignerSeeds;

/* Rent sysvar as sol_get_rent_sysvar writes it (exemption_threshold is an f64; we only
 * read its bits, SBPF has no floating point). */
typedef struct {
    u64 lamports_per_byte_year;
    u64 exemption_threshold_bits;
    u8 burn_percent;
} SolRent;

/* Syscalls: resolved by name at load time (the linker emits a .dynsym entry for each). */
extern void sol_log_(const char *message, u64 len);
extern u64 sol_try_find_program_address(const SolSignerSeed *seeds, u64 seeds_len,
                                        const SolPubkey *program_id, SolPubkey *address,
                                        u8 *bump_seed);
extern u64 sol_invoke_signed_c(const SolInstruction *instruction,
                               const SolAccountInfo *account_infos, u64 account_infos_len,
                               const SolSignerSeeds *signers_seeds, u64 signers_seeds_len);
extern u64 sol_get_rent_sysvar(SolRent *rent);
extern u64 sol_create_program_address(const SolSignerSeed *seeds, u64 seeds_len,
                                      const SolPubkey *program_id, SolPubkey *address);

/* Clock sysvar as sol_get_clock_sysvar writes it. */
typedef struct {
    u64 slot;
    long long epoch_start_timestamp;
    u64 epoch;
    u64 leader_schedule_epoch;
    long long unix_timestamp;
} SolClock;
extern u64 sol_get_clock_sysvar(SolClock *clock);

/* sol_log_data: the "Program data: <base64>" log line Anchor's emit! writes. */
typedef struct {
    const u8 *addr;
    u64 len;
} SolBytes;
extern void sol_log_data(const SolBytes *data, u64 data_len);

#endif
