/* tlc/annotations.h: attributes that tell tlc about kernels and their parameters.
 *
 * While tlc parses a file it defines __TLC__ and these macros become Clang `annotate`
 * attributes that tlc reads from the AST. Under nvcc (or any other compiler) they expand to
 * nothing, so an annotated file still builds with plain nvcc.
 *
 *   TLC_NAME("name")        on a kernel: the launcher's name (NAME_<name> in the generated API).
 *                           On a kernel template, instantiations append their template arguments.
 *   TLC_TMA("spec")         after a `const __grid_constant__ CUtensorMap` parameter's name:
 *                           a tiled tensor map (see docs/tma.md for the grammar).
 *   TLC_TMA_IM2COL("spec")  likewise, an im2col tensor map.
 */
#ifndef TLC_ANNOTATIONS_H
#define TLC_ANNOTATIONS_H

#if defined(__TLC__)
#define TLC_NAME(name) __attribute__((annotate("tlc.name", name)))
#define TLC_TMA(spec) __attribute__((annotate("tlc.tma", spec)))
#define TLC_TMA_IM2COL(spec) __attribute__((annotate("tlc.tma_im2col", spec)))
#else
#define TLC_NAME(name)
#define TLC_TMA(spec)
#define TLC_TMA_IM2COL(spec)
#endif

#endif /* TLC_ANNOTATIONS_H */
