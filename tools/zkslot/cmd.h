/*
 * cmd.h -- the subcommands of the `zkslot` CLI.
 *
 * Each subcommand lives in its own tools/zkslot/cmd/cmd_<name>.c and defines
 * `int cmd_<name>(int argc, char **argv)` (argv[0] is the subcommand name);
 * main.c's table lists them.  Exit codes: 0 success, 1 a negative verdict
 * (invalid proof, failed check), 2 an error.
 *
 * Help: a subcommand prints its usage to stderr and returns 2 when its
 * arguments are missing or wrong.  `zkslot CMD --help` runs it with no
 * arguments and cmd_help set, stderr going to stdout, and exits 0; one
 * that would do something without arguments (status, top, metrics)
 * prints its usage first when cmd_help is set.
 */
#ifndef ZK_TOOLS_CMD_H
#define ZK_TOOLS_CMD_H

#define ZK_CMD(name) int cmd_##name(int argc, char **argv)

/* Set by main.c for `zkslot CMD --help` (see above). */
extern int cmd_help;

ZK_CMD(bench);
ZK_CMD(prove);
ZK_CMD(verify);
ZK_CMD(export_vk);
ZK_CMD(setup);
ZK_CMD(inspect);
ZK_CMD(pool);
ZK_CMD(key);
ZK_CMD(submit);
ZK_CMD(status);
ZK_CMD(wait);
ZK_CMD(result);
ZK_CMD(cancel);
ZK_CMD(reprioritize);
ZK_CMD(plan);
ZK_CMD(top);
ZK_CMD(metrics);
ZK_CMD(token);
ZK_CMD(seal_key);
ZK_CMD(bp);

/* `zkslot bench <what>` subbenchmarks, one per module, same convention. */
ZK_CMD(bench_field);
ZK_CMD(bench_ntt);
ZK_CMD(bench_msm);
ZK_CMD(bench_prove);
ZK_CMD(bench_pool);
ZK_CMD(bench_pipeline);
ZK_CMD(bench_inplace);
ZK_CMD(bench_ledger);
ZK_CMD(bench_api);

#endif /* ZK_TOOLS_CMD_H */
