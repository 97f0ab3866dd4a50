/*
 * test_field_noasm.c -- test_field.c again with the x86-64 assembly disabled
 * (ZK_NO_ASM), so the portable C Montgomery code passes the same checks.
 */
#define ZK_NO_ASM 1
#include "test_field.c"
