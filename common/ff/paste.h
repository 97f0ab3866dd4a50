/*
 * paste.h -- the token pasting of the *_tmpl.h templates, defined once.
 *
 *   ZK_CAT(a, b)      a_b, a and b macro-expanded first:
 *                     ZK_CAT(bn254_g1, add) is bn254_g1_add
 *   ZK_ARG(n, list)   element n (1 to 8) of a parenthesised list
 *
 * A template is instantiated by one line naming its parameters as a list,
 * then the #include; the template reads the list with ZK_ARG and undefines
 * it at its end:
 *
 *   #define ZK_EC_TMPL (bn254_g1, bn254_fp, BN254_G1, BN254_FR)
 *   #include "ec_tmpl.h"
 *
 * Inside a template each paste macro is named after what it builds
 * (GROUP_FN(add) is bn254_g1_add, GROUP_AFFINE_T is bn254_g1_affine), and
 * the template's header comment lists the names it generates, so grepping
 * for a generated name finds the template that makes it.
 *
 * The elements of a list must be names or numbers that are not macros
 * expanding to an initializer: its commas would split the list.  A
 * template pastes a constant's prefix and suffix instead
 * (ZK_CAT(BN254_G1, B) is BN254_G1_B, expanded where it is used).
 */
#ifndef ZK_COMMON_FF_PASTE_H
#define ZK_COMMON_FF_PASTE_H

#define ZK_CAT_(a, b) a##_##b
#define ZK_CAT(a, b) ZK_CAT_(a, b)

/* (the unpacked list gets one more element, so that `...` is never empty) */
#define ZK_ARG(n, list) ZK_ARG_CALL_(ZK_ARG_##n##_, ZK_ARG_UNPACK_ list)
#define ZK_ARG_UNPACK_(...) __VA_ARGS__, ~
#define ZK_ARG_CALL_(pick, ...) pick(__VA_ARGS__)
#define ZK_ARG_1_(a, ...) a
#define ZK_ARG_2_(a, b, ...) b
#define ZK_ARG_3_(a, b, c, ...) c
#define ZK_ARG_4_(a, b, c, d, ...) d
#define ZK_ARG_5_(a, b, c, d, e, ...) e
#define ZK_ARG_6_(a, b, c, d, e, f, ...) f
#define ZK_ARG_7_(a, b, c, d, e, f, g, ...) g
#define ZK_ARG_8_(a, b, c, d, e, f, g, h, ...) h

#endif /* ZK_COMMON_FF_PASTE_H */
