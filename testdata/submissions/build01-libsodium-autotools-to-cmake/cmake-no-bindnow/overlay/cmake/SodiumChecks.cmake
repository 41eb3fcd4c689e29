# Configure-time checks: what configure.ac detected, detected here by CMake
# when it configures. Results land in:
#   SODIUM_DEFINITIONS       compile definitions (configure's DEFS)
#   SODIUM_C_FLAGS           C flags for every library source (configure's CFLAGS additions)
#   SODIUM_LINK_FLAGS        linker flags (configure's LDFLAGS, less -pie)
#   SODIUM_EXE_LINK_FLAGS    -pie, for executables only (libtool drops it from the library)
#   SODIUM_CFLAGS_<ISA>      the flag of one instruction set, empty when unavailable
#   SODIUM_HAVE_AMD64_ASM, SODIUM_HAVE_AVX_ASM, SODIUM_HAVE_TI_MODE  source-list switches
#   PKGCONFIG_LIBS_PRIVATE   libsodium.pc's Libs.private
include(CheckCCompilerFlag)
include(CheckCSourceCompiles)
include(CheckCSourceRuns)
include(CheckIncludeFile)
include(CheckLinkerFlag)
include(CheckSymbolExists)
include(CMakePushCheckState)

set(SODIUM_DEFINITIONS "")
set(SODIUM_C_FLAGS "")
set(SODIUM_LINK_FLAGS "")
set(PKGCONFIG_LIBS_PRIVATE "")

macro(sodium_define name)
  if(${ARGC} GREATER 1)
    list(APPEND SODIUM_DEFINITIONS "${name}=${ARGV1}")
  else()
    list(APPEND SODIUM_DEFINITIONS "${name}=1")
  endif()
endmacro()

# A flag is kept when the compiler accepts it (AX_CHECK_COMPILE_FLAG).
function(sodium_try_c_flag flag var)
  string(MAKE_C_IDENTIFIER "SODIUM_CFLAG_${flag}" cache)
  check_c_compiler_flag("${flag}" ${cache})
  set(${var} ${${cache}} PARENT_SCOPE)
endfunction()

function(sodium_try_link_flag flag var)
  string(MAKE_C_IDENTIFIER "SODIUM_LDFLAG_${flag}" cache)
  check_linker_flag(C "${flag}" ${cache})
  set(${var} ${${cache}} PARENT_SCOPE)
endfunction()

# AC_INIT's package definitions.
sodium_define(PACKAGE_NAME "\"${PROJECT_NAME}\"")
sodium_define(PACKAGE_TARNAME "\"${PROJECT_NAME}\"")
sodium_define(PACKAGE_VERSION "\"${PROJECT_VERSION}\"")
sodium_define(PACKAGE_STRING "\"${PROJECT_NAME} ${PROJECT_VERSION}\"")
sodium_define(PACKAGE_BUGREPORT "\"${SODIUM_PACKAGE_BUGREPORT}\"")
sodium_define(PACKAGE_URL "\"${SODIUM_PACKAGE_URL}\"")
sodium_define(PACKAGE "\"${PROJECT_NAME}\"")
sodium_define(VERSION "\"${PROJECT_VERSION}\"")

if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  set(SODIUM_GCC_LIKE ON)
else()
  set(SODIUM_GCC_LIKE OFF)
endif()

# --with-pthreads (AX_PTHREAD: with gcc and clang the -pthread flag; then a
# mutex program must link).
set(SODIUM_WITH_THREADS OFF)
set(SODIUM_PTHREAD_FLAGS "")
if(SODIUM_WITH_PTHREADS)
  set(SODIUM_PTHREAD_FOUND OFF)
  if(SODIUM_GCC_LIKE)
    cmake_push_check_state(RESET)
    set(CMAKE_REQUIRED_FLAGS "-pthread")
    check_c_source_compiles("#include <pthread.h>
static void *start(void *a) { return a; }
int main(void) { pthread_t th; pthread_create(&th, 0, start, 0); pthread_join(th, 0); return 0; }"
      SODIUM_PTHREAD_FLAG_WORKS)
    cmake_pop_check_state()
    if(SODIUM_PTHREAD_FLAG_WORKS)
      set(SODIUM_PTHREAD_FLAGS "-pthread")
      set(SODIUM_PTHREAD_FOUND ON)
    endif()
  endif()
  if(NOT SODIUM_PTHREAD_FOUND)
    set(THREADS_PREFER_PTHREAD_FLAG ON)
    find_package(Threads)
    if(Threads_FOUND AND CMAKE_USE_PTHREADS_INIT)
      set(SODIUM_PTHREAD_FLAGS "${CMAKE_THREAD_LIBS_INIT}")
      set(SODIUM_PTHREAD_FOUND ON)
    endif()
  endif()
  if(SODIUM_PTHREAD_FOUND)
    cmake_push_check_state(RESET)
    set(CMAKE_REQUIRED_FLAGS "${SODIUM_PTHREAD_FLAGS}")
    check_c_source_compiles("#include <pthread.h>
int main(void) { int i = PTHREAD_PRIO_INHERIT; (void) i; return 0; }" SODIUM_HAVE_PTHREAD_PRIO_INHERIT)
    check_c_source_compiles("#include <pthread.h>
int main(void) { pthread_mutex_t mutex; pthread_mutex_lock(&mutex); pthread_mutex_unlock(&mutex); return 0; }"
      SODIUM_HAVE_PTHREAD_MUTEX)
    cmake_pop_check_state()
    if(SODIUM_HAVE_PTHREAD_PRIO_INHERIT)
      sodium_define(HAVE_PTHREAD_PRIO_INHERIT)
    endif()
    if(SODIUM_HAVE_PTHREAD_MUTEX)
      sodium_define(HAVE_PTHREAD)
      set(SODIUM_WITH_THREADS ON)
      # configure: PKGCONFIG_LIBS_PRIVATE="$PTHREAD_LIBS $PTHREAD_CFLAGS $PKGCONFIG_LIBS_PRIVATE"
      # (with -pthread the libraries are empty and the flag is a C flag).
      if(SODIUM_PTHREAD_FLAGS MATCHES "^-pthread")
        set(PKGCONFIG_LIBS_PRIVATE " ${SODIUM_PTHREAD_FLAGS} ")
        list(APPEND SODIUM_C_FLAGS "${SODIUM_PTHREAD_FLAGS}")
      else()
        set(PKGCONFIG_LIBS_PRIVATE "${SODIUM_PTHREAD_FLAGS}  ")
      endif()
    else()
      message(STATUS "pthread mutexes are not available")
    endif()
  endif()
endif()

# --enable-debug
if(SODIUM_ENABLE_DEBUG)
  list(APPEND SODIUM_DEFINITIONS "DEBUG=1")
  list(APPEND SODIUM_C_FLAGS "-U_FORTIFY_SOURCE")
endif()

# --enable-opt
if(SODIUM_ENABLE_OPT)
  foreach(flag -Ofast -ftree-vectorize -ftree-slp-vectorize -fomit-frame-pointer -march=native)
    sodium_try_c_flag(${flag} ok)
    if(ok)
      list(APPEND SODIUM_C_FLAGS ${flag})
    endif()
  endforeach()
endif()

# --enable-retpoline
if(SODIUM_ENABLE_RETPOLINE)
  sodium_try_c_flag(-mindirect-branch=thunk-inline ok)
  if(ok)
    list(APPEND SODIUM_C_FLAGS -mindirect-branch=thunk-inline)
  else()
    sodium_try_c_flag(-mretpoline ok)
    if(ok)
      list(APPEND SODIUM_C_FLAGS -mretpoline)
    endif()
  endif()
  sodium_try_c_flag(-mindirect-branch-register ok)
endif()

# AC_USE_SYSTEM_EXTENSIONS (autoconf 2.71 defines these unconditionally).
foreach(ext _ALL_SOURCE _DARWIN_C_SOURCE _GNU_SOURCE _HPUX_ALT_XOPEN_SOCKET_API _NETBSD_SOURCE
    _OPENBSD_SOURCE _POSIX_PTHREAD_SEMANTICS __STDC_WANT_IEC_60559_ATTRIBS_EXT__
    __STDC_WANT_IEC_60559_BFP_EXT__ __STDC_WANT_IEC_60559_DFP_EXT__ __STDC_WANT_IEC_60559_FUNCS_EXT__
    __STDC_WANT_IEC_60559_TYPES_EXT__ __STDC_WANT_LIB_EXT2__ __STDC_WANT_MATH_SPEC_FUNCS__
    _TANDEM_SOURCE __EXTENSIONS__)
  sodium_define(${ext})
endforeach()

# AC_INCLUDES_DEFAULT's headers.
foreach(h stdio.h stdlib.h string.h inttypes.h stdint.h strings.h sys/stat.h sys/types.h unistd.h wchar.h)
  string(MAKE_C_IDENTIFIER "HAVE_${h}" var)
  string(TOUPPER "${var}" var)
  check_include_file(${h} SODIUM_${var})
  if(SODIUM_${var})
    sodium_define(${var})
  endif()
endforeach()
if(SODIUM_HAVE_STDIO_H AND SODIUM_HAVE_STDLIB_H AND SODIUM_HAVE_STRING_H)
  sodium_define(STDC_HEADERS)
endif()

# AC_C_VARARRAYS
check_c_source_compiles("int main(int argc, char **argv) { char a[argc + 1]; a[0] = 0; return (int) a[0]; }"
  SODIUM_HAVE_C_VARARRAYS)
if(SODIUM_HAVE_C_VARARRAYS)
  sodium_define(HAVE_C_VARARRAYS)
endif()

# wasi
check_symbol_exists(__wasi__ "" SODIUM_WASI)

# _FORTIFY_SOURCE, unless the compiler already defines it.
check_symbol_exists(_FORTIFY_SOURCE "" SODIUM_FORTIFY_PREDEFINED)
set(SODIUM_CPP_FLAGS "")
if(NOT SODIUM_FORTIFY_PREDEFINED)
  sodium_try_c_flag(-D_FORTIFY_SOURCE=2 ok)
  if(ok)
    list(APPEND SODIUM_CPP_FLAGS -D_FORTIFY_SOURCE=2)
  endif()
endif()

sodium_try_c_flag(-fvisibility=hidden ok)
if(ok)
  list(APPEND SODIUM_C_FLAGS -fvisibility=hidden)
endif()

# Position independence: configure adds -fPIC, then -fPIE (and -pie to the
# link) unless --disable-pie. The last flag wins for each object: the
# shared library's objects are compiled -fPIC (libtool appends it), the
# static archive's keep -fPIE. SODIUM_PIC_FLAG and SODIUM_PIE_FLAG say
# which the targets use.
set(SODIUM_PIC_FLAG "")
if(NOT WIN32 AND NOT CYGWIN)
  sodium_try_c_flag(-fPIC ok)
  if(ok)
    set(SODIUM_PIC_FLAG -fPIC)
  endif()
endif()
set(SODIUM_PIE_FLAG "")
set(SODIUM_EXE_LINK_FLAGS "")
if(SODIUM_ENABLE_PIE AND NOT WIN32 AND NOT CYGWIN)
  sodium_try_c_flag(-fPIE ok)
  if(ok)
    sodium_try_link_flag(-pie lok)
    if(lok)
      set(SODIUM_PIE_FLAG -fPIE)
      set(SODIUM_EXE_LINK_FLAGS -pie)
    endif()
  endif()
endif()

sodium_try_c_flag(-fno-strict-aliasing ok)
if(ok)
  list(APPEND SODIUM_C_FLAGS -fno-strict-aliasing)
endif()
sodium_try_c_flag(-fno-strict-overflow ok)
if(ok)
  list(APPEND SODIUM_C_FLAGS -fno-strict-overflow)
else()
  sodium_try_c_flag(-fwrapv ok)
  if(ok)
    list(APPEND SODIUM_C_FLAGS -fwrapv)
  endif()
endif()

# Old gcc on x86 needs lax vector conversions.
if(CMAKE_C_COMPILER_ID STREQUAL "GNU" AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(i.86|amd64|AMD64|x86_64)$")
  check_c_source_compiles("
#if !defined(__clang__) && defined(__GNUC__) && ((__GNUC__ << 8) | __GNUC_MINOR__) < 0x403
# error old gcc
#endif
int main(void) { return 0; }" SODIUM_GCC_NEW_ENOUGH)
  if(NOT SODIUM_GCC_NEW_ENOUGH)
    sodium_try_c_flag(-flax-vector-conversions ok)
    if(ok)
      list(APPEND SODIUM_C_FLAGS -flax-vector-conversions)
    endif()
  endif()
endif()

if(WIN32 OR CYGWIN)
  foreach(flag -Wl,--dynamicbase -Wl,--high-entropy-va -Wl,--nxcompat)
    sodium_try_link_flag(${flag} ok)
    if(ok)
      list(APPEND SODIUM_LINK_FLAGS ${flag})
    endif()
  endforeach()
  sodium_try_c_flag(-fno-asynchronous-unwind-tables ok)
  if(ok)
    list(APPEND SODIUM_C_FLAGS -fno-asynchronous-unwind-tables)
  endif()
endif()

# --disable-ssp
if(SODIUM_ENABLE_SSP AND NOT WIN32 AND NOT CYGWIN AND NOT CMAKE_SYSTEM_NAME MATCHES "Haiku")
  sodium_try_c_flag(-fstack-protector ok)
  if(ok)
    sodium_try_link_flag(-fstack-protector lok)
    if(lok)
      list(APPEND SODIUM_C_FLAGS -fstack-protector)
    endif()
  endif()
endif()

foreach(flag -Wl,-z,relro -Wl,-z,noexecstack)
  sodium_try_link_flag(${flag} ok)
  if(ok)
    list(APPEND SODIUM_LINK_FLAGS ${flag})
  endif()
endforeach()

# AX_CHECK_CATCHABLE_SEGV / AX_CHECK_CATCHABLE_ABRT (they run a program).
if(NOT CMAKE_CROSSCOMPILING)
  check_c_source_runs("
#include <signal.h>
#include <stdlib.h>
static void sig(int _) { (void) _; exit(0); }
int main(void) {
volatile unsigned char * volatile x = (volatile unsigned char *) malloc(8);
size_t i;
signal(SIGSEGV, sig);
signal(SIGBUS, sig);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__EMSCRIPTEN__)
for (i = 0; i < 10000000; i += 1024) { x[-i] = x[i] = (unsigned char) i; }
#endif
free((void *) x);
exit(1);
}" SODIUM_HAVE_CATCHABLE_SEGV)
  check_c_source_runs("
#include <signal.h>
#include <stdlib.h>
#ifndef SIGABRT
# error SIGABRT is not defined
#endif
static void sigabrt_handler_3(int _) { (void) _; exit(0); }
static void sigabrt_handler_2(int _) { (void) _; signal(SIGABRT, sigabrt_handler_3); abort(); exit(1); }
static void sigabrt_handler_1(int _) { (void) _; signal(SIGABRT, sigabrt_handler_2); abort(); exit(1); }
int main(void) {
signal(SIGABRT, sigabrt_handler_1);
abort();
exit(1);
}" SODIUM_HAVE_CATCHABLE_ABRT)
  if(SODIUM_HAVE_CATCHABLE_SEGV)
    sodium_define(HAVE_CATCHABLE_SEGV)
  endif()
  if(SODIUM_HAVE_CATCHABLE_ABRT)
    sodium_define(HAVE_CATCHABLE_ABRT)
  endif()
endif()

# AX_TLS: the first storage class the compiler takes.
if(SODIUM_WITH_THREADS)
  set(SODIUM_TLS "")
  foreach(kw thread_local _Thread_local __thread)
    string(MAKE_C_IDENTIFIER "SODIUM_TLS_${kw}" var)
    check_c_source_compiles("#include <stdlib.h>
static void foo(void) { static ${kw} int bar; exit(1); }
int main(void) { return 0; }" ${var})
    if(${var})
      set(SODIUM_TLS ${kw})
      break()
    endif()
  endforeach()
  if(SODIUM_TLS)
    message(STATUS "thread local storage is supported: ${SODIUM_TLS}")
    sodium_define(TLS ${SODIUM_TLS})
    sodium_try_c_flag(-ftls-model=local-dynamic ok)
    if(ok)
      list(APPEND SODIUM_C_FLAGS -ftls-model=local-dynamic)
    endif()
  else()
    message(STATUS "thread local storage is not supported")
  endif()
endif()

# libtool's own check.
check_include_file(dlfcn.h SODIUM_HAVE_DLFCN_H)
if(SODIUM_HAVE_DLFCN_H)
  sodium_define(HAVE_DLFCN_H)
endif()

# Instruction sets: the compiler must accept the flag and compile the
# intrinsics with it. Each result is a definition and a flag that only
# that instruction set's group of sources gets.
function(sodium_check_isa name flags define source)
  set(all_ok ON)
  foreach(flag ${flags})
    sodium_try_c_flag(${flag} ok)
    if(NOT ok)
      set(all_ok OFF)
    endif()
  endforeach()
  set(SODIUM_CFLAGS_${name} "" PARENT_SCOPE)
  if(NOT all_ok)
    return()
  endif()
  cmake_push_check_state(RESET)
  string(REPLACE ";" " " CMAKE_REQUIRED_FLAGS "${SODIUM_C_FLAGS};${flags}")
  check_c_source_compiles("${source}" SODIUM_HAVE_ISA_${name})
  cmake_pop_check_state()
  if(SODIUM_HAVE_ISA_${name})
    set(SODIUM_DEFINITIONS ${SODIUM_DEFINITIONS} "${define}=1" PARENT_SCOPE)
    set(SODIUM_CFLAGS_${name} "${flags}" PARENT_SCOPE)
  endif()
endfunction()

set(SODIUM_ISAS MMX SSE2 SSE3 SSSE3 SSE41 AVX AVX2 AVX512F AESNI RDRAND)
foreach(isa ${SODIUM_ISAS})
  set(SODIUM_CFLAGS_${isa} "")
endforeach()
if(NOT EMSCRIPTEN)
  sodium_check_isa(MMX -mmmx HAVE_MMINTRIN_H "#pragma GCC target(\"mmx\")
#include <mmintrin.h>
int main(void) { __m64 x = _mm_setzero_si64(); (void) x; return 0; }")
  sodium_check_isa(SSE2 -msse2 HAVE_EMMINTRIN_H "#pragma GCC target(\"sse2\")
#ifndef __SSE2__
# define __SSE2__
#endif
#include <emmintrin.h>
int main(void) { __m128d x = _mm_setzero_pd();
       __m128i z = _mm_srli_epi64(_mm_setzero_si128(), 26); (void) x; (void) z; return 0; }")
  sodium_check_isa(SSE3 -msse3 HAVE_PMMINTRIN_H "#pragma GCC target(\"sse3\")
#include <pmmintrin.h>
int main(void) { __m128 x = _mm_addsub_ps(_mm_cvtpd_ps(_mm_setzero_pd()),
                                _mm_cvtpd_ps(_mm_setzero_pd())); (void) x; return 0; }")
  sodium_check_isa(SSSE3 -mssse3 HAVE_TMMINTRIN_H "#pragma GCC target(\"ssse3\")
#include <tmmintrin.h>
int main(void) { __m64 x = _mm_abs_pi32(_m_from_int(0)); (void) x; return 0; }")
  sodium_check_isa(SSE41 -msse4.1 HAVE_SMMINTRIN_H "#pragma GCC target(\"sse4.1\")
#include <smmintrin.h>
int main(void) { __m128i x = _mm_minpos_epu16(_mm_setzero_si128()); (void) x; return 0; }")
  sodium_check_isa(AVX -mavx HAVE_AVXINTRIN_H "#pragma GCC target(\"avx\")
#include <immintrin.h>
int main(void) { _mm256_zeroall(); return 0; }")
  sodium_check_isa(AVX2 -mavx2 HAVE_AVX2INTRIN_H "#pragma GCC target(\"avx2\")
#include <immintrin.h>
int main(void) {
__m256 x = _mm256_set1_ps(3.14);
__m256 y = _mm256_permutevar8x32_ps(x, _mm256_set1_epi32(42));
return _mm256_movemask_ps(_mm256_cmp_ps(x, y, _CMP_NEQ_OQ));
}")
  if(SODIUM_HAVE_ISA_AVX2)
    cmake_push_check_state(RESET)
    set(CMAKE_REQUIRED_FLAGS "-mavx2")
    check_c_source_compiles("#pragma GCC target(\"avx2\")
#include <immintrin.h>
int main(void) { __m256i y = _mm256_broadcastsi128_si256(_mm_setzero_si128()); (void) y; return 0; }"
      SODIUM_HAVE_MM256_BROADCASTSI128_SI256)
    cmake_pop_check_state()
    if(NOT SODIUM_HAVE_MM256_BROADCASTSI128_SI256)
      sodium_define(_mm256_broadcastsi128_si256 _mm_broadcastsi128_si256)
    endif()
  endif()
  sodium_check_isa(AVX512F -mavx512f HAVE_AVX512FINTRIN_H "#pragma GCC target(\"avx512f\")
#include <immintrin.h>
#ifndef __AVX512F__
# error No AVX512 support
#elif defined(__clang__)
# if __clang_major__ < 4
#  error Compiler AVX512 support may be broken
# endif
#elif defined(__GNUC__)
# if __GNUC__ < 6
#  error Compiler AVX512 support may be broken
# endif
#endif
int main(void) {
__m512i x = _mm512_setzero_epi32();
__m512i y = _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 1, 4, 5, 2, 3, 6, 7), x);
(void) y; return 0; }")
  if(NOT SODIUM_HAVE_ISA_AVX512F)
    sodium_try_c_flag(-mno-avx512f ok)
    if(ok)
      list(APPEND SODIUM_C_FLAGS -mno-avx512f)
    endif()
  endif()
  sodium_check_isa(AESNI "-maes;-mpclmul" HAVE_WMMINTRIN_H "#pragma GCC target(\"aes\")
#pragma GCC target(\"pclmul\")
#include <wmmintrin.h>
int main(void) { __m128i x = _mm_aesimc_si128(_mm_setzero_si128());
       __m128i y = _mm_clmulepi64_si128(_mm_setzero_si128(), _mm_setzero_si128(), 0); (void) x; (void) y; return 0; }")
  sodium_check_isa(RDRAND -mrdrnd HAVE_RDRAND "#pragma GCC target(\"rdrnd\")
#include <immintrin.h>
int main(void) { unsigned long long x; _rdrand64_step(&x); return 0; }")
endif()

foreach(h sys/mman.h sys/random.h intrin.h)
  string(MAKE_C_IDENTIFIER "HAVE_${h}" var)
  string(TOUPPER "${var}" var)
  check_include_file(${h} SODIUM_${var})
  if(SODIUM_${var})
    sodium_define(${var})
  endif()
endforeach()

check_c_source_compiles("#include <intrin.h>
int main(void) { (void) _xgetbv(0); return 0; }" SODIUM_HAVE__XGETBV)
if(SODIUM_HAVE__XGETBV)
  sodium_define(HAVE__XGETBV)
endif()

# Endianness.
if(CMAKE_C_BYTE_ORDER STREQUAL "BIG_ENDIAN")
  sodium_define(NATIVE_BIG_ENDIAN)
elseif(CMAKE_C_BYTE_ORDER STREQUAL "LITTLE_ENDIAN")
  sodium_define(NATIVE_LITTLE_ENDIAN)
else()
  message(FATAL_ERROR "unknown endianness")
endif()

check_c_source_compiles("#include <limits.h>
#include <stdint.h>
int main(void) { (void) SIZE_MAX; (void) UINT64_MAX; return 0; }" SODIUM_LIMIT_MACROS_NOT_NEEDED)
if(NOT SODIUM_LIMIT_MACROS_NOT_NEEDED)
  list(APPEND SODIUM_DEFINITIONS __STDC_LIMIT_MACROS __STDC_CONSTANT_MACROS)
endif()

check_c_source_compiles([=[int main(void) {
int a = 42;
int *pnt = &a;
__asm__ __volatile__ ("" : : "r"(pnt) : "memory");
return 0; }]=] SODIUM_HAVE_INLINE_ASM)
if(SODIUM_HAVE_INLINE_ASM)
  sodium_define(HAVE_INLINE_ASM)
endif()

set(SODIUM_HAVE_AMD64_ASM OFF)
set(SODIUM_HAVE_AVX_ASM OFF)
set(SODIUM_HAVE_CPUID OFF)
set(SODIUM_X86_64_GUARD "
#if defined(__amd64) || defined(__amd64__) || defined(__x86_64__)
# if defined(__CYGWIN__) || defined(__MINGW32__) || defined(__MINGW64__) || defined(_WIN32) || defined(_WIN64)
#  error Windows x86_64 calling conventions are not supported yet
# endif
/* neat */
#else
# error !x86_64
#endif
")
if(SODIUM_ENABLE_ASM)
  string(CONCAT src "${SODIUM_X86_64_GUARD}" [=[
int main(void) {
unsigned char i = 0, o = 0, t;
__asm__ __volatile__ ("pxor %%xmm12, %%xmm6 \\n"
                      "movb (%[i]), %[t] \\n"
                      "addb %[t], (%[o]) \\n"
                      : [t] "=&r"(t)
                      : [o] "D"(&o), [i] "S"(&i)
                      : "memory", "flags", "cc");
return 0; }
]=])
  check_c_source_compiles("${src}" SODIUM_AMD64_ASM_OK)
  if(SODIUM_AMD64_ASM_OK)
    sodium_define(HAVE_AMD64_ASM)
    set(SODIUM_HAVE_AMD64_ASM ON)
  endif()
  string(CONCAT src "${SODIUM_X86_64_GUARD}" [=[
int main(void) {
__asm__ __volatile__ ("vpunpcklqdq %xmm0,%xmm13,%xmm0");
return 0; }
]=])
  check_c_source_compiles("${src}" SODIUM_AVX_ASM_OK)
  if(SODIUM_AVX_ASM_OK)
    sodium_define(HAVE_AVX_ASM)
    set(SODIUM_HAVE_AVX_ASM ON)
  endif()
endif()

set(SODIUM_HAVE_TI_MODE OFF)
set(SODIUM_ENDIAN_DEF "")
if(CMAKE_C_BYTE_ORDER STREQUAL "LITTLE_ENDIAN")
  set(SODIUM_ENDIAN_DEF "#define NATIVE_LITTLE_ENDIAN 1")
endif()
check_c_source_compiles("${SODIUM_ENDIAN_DEF}
#if !defined(__clang__) && !defined(__GNUC__) && !defined(__SIZEOF_INT128__)
# error mode(TI) is a gcc extension, and __int128 is not available
#endif
#if defined(__clang__) && !defined(__x86_64__) && !defined(__aarch64__)
# error clang does not properly handle the 128-bit type on 32-bit systems
#endif
#ifndef NATIVE_LITTLE_ENDIAN
# error libsodium currently expects a little endian CPU for the 128-bit type
#endif
#ifdef __EMSCRIPTEN__
# error emscripten currently doesn't support some operations on integers larger than 64 bits
#endif
#include <stddef.h>
#include <stdint.h>
#if defined(__SIZEOF_INT128__)
typedef unsigned __int128 uint128_t;
#else
typedef unsigned uint128_t __attribute__((mode(TI)));
#endif
void fcontract(uint128_t *t) {
  *t += 0x8000000000000 - 1;
  *t *= *t;
  *t >>= 84;
}
int main(void) { (void) fcontract; return 0; }" SODIUM_TI_MODE_OK)
if(SODIUM_TI_MODE_OK)
  sodium_define(HAVE_TI_MODE)
  set(SODIUM_HAVE_TI_MODE ON)
endif()

if(SODIUM_ENABLE_ASM)
  check_c_source_compiles([=[int main(void) {
unsigned int cpu_info[4];
__asm__ __volatile__ ("xchgl %%ebx, %k1; cpuid; xchgl %%ebx, %k1" :
                      "=a" (cpu_info[0]), "=&r" (cpu_info[1]),
                      "=c" (cpu_info[2]), "=d" (cpu_info[3]) :
                      "0" (0U), "2" (0U));
return 0; }]=] SODIUM_CPUID_OK)
  if(SODIUM_CPUID_OK)
    sodium_define(HAVE_CPUID)
    set(SODIUM_HAVE_CPUID ON)
  endif()

  set(SODIUM_ASM_HIDE_SYMBOL "unsupported")
  check_c_source_compiles([=[int main(void) {
__asm__ __volatile__ (".private_extern dummy_symbol \\n"
                      ".private_extern _dummy_symbol \\n"
                      ".globl dummy_symbol \\n"
                      ".globl _dummy_symbol \\n"
                      "dummy_symbol: \\n"
                      "_dummy_symbol: \\n"
                      "    nop \\n"
);
return 0; }]=] SODIUM_ASM_PRIVATE_EXTERN)
  if(SODIUM_ASM_PRIVATE_EXTERN)
    set(SODIUM_ASM_HIDE_SYMBOL ".private_extern")
  endif()
  check_c_source_compiles([=[int main(void) {
__asm__ __volatile__ (".hidden dummy_symbol \\n"
                      ".hidden _dummy_symbol \\n"
                      ".globl dummy_symbol \\n"
                      ".globl _dummy_symbol \\n"
                      "dummy_symbol: \\n"
                      "_dummy_symbol: \\n"
                      "    nop \\n"
);
return 0; }]=] SODIUM_ASM_HIDDEN)
  if(SODIUM_ASM_HIDDEN)
    if(SODIUM_ASM_HIDE_SYMBOL STREQUAL "unsupported")
      set(SODIUM_ASM_HIDE_SYMBOL ".hidden")
    else()
      message(STATUS "unable to reliably tag symbols as private")
      set(SODIUM_ASM_HIDE_SYMBOL "unsupported")
    endif()
  endif()
  if(NOT SODIUM_ASM_HIDE_SYMBOL STREQUAL "unsupported")
    sodium_define(ASM_HIDE_SYMBOL ${SODIUM_ASM_HIDE_SYMBOL})
  endif()
endif()

check_c_source_compiles("
#if !defined(__ELF__) && !defined(__APPLE_CC__)
# error Support for weak symbols may not be available
#endif
__attribute__((weak)) void __dummy(void *x) { }
void f(void *x) { __dummy(x); }
int main(void) { return 0; }" SODIUM_HAVE_WEAK_SYMBOLS)
if(SODIUM_HAVE_WEAK_SYMBOLS)
  sodium_define(HAVE_WEAK_SYMBOLS)
endif()

# Unaligned access: known-good CPUs, or ARM advertising it.
set(SODIUM_UNALIGNED_OK OFF)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(i.86|amd64|AMD64|x86_64|powerpc.*|ppc.*|s390.*)$")
  set(SODIUM_UNALIGNED_OK ON)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^arm")
  check_c_source_compiles("
#ifndef __ARM_FEATURE_UNALIGNED
# error data alignment is required
#endif
int main(void) { return 0; }" SODIUM_ARM_UNALIGNED)
  set(SODIUM_UNALIGNED_OK ${SODIUM_ARM_UNALIGNED})
endif()
if(SODIUM_UNALIGNED_OK)
  sodium_define(CPU_UNALIGNED_ACCESS)
endif()

check_c_source_compiles("int main(void) {
static volatile int _sodium_lock;
__sync_lock_test_and_set(&_sodium_lock, 1);
__sync_lock_release(&_sodium_lock);
return 0; }" SODIUM_HAVE_ATOMIC_OPS)
if(SODIUM_HAVE_ATOMIC_OPS)
  sodium_define(HAVE_ATOMIC_OPS)
endif()

# AC_FUNC_ALLOCA
check_include_file(alloca.h SODIUM_HAVE_ALLOCA_H)
if(SODIUM_HAVE_ALLOCA_H)
  sodium_define(HAVE_ALLOCA_H)
endif()
check_c_source_compiles("#include <stdlib.h>
#ifdef HAVE_ALLOCA_H
# include <alloca.h>
#endif
int main(void) { char *p = (char *) alloca(2 * sizeof(int)); if (p) return 0; return 0; }" SODIUM_HAVE_ALLOCA)
if(SODIUM_HAVE_ALLOCA)
  sodium_define(HAVE_ALLOCA)
endif()

# Functions (AC_CHECK_FUNCS links a call to each).
function(sodium_check_funcs)
  foreach(f ${ARGN})
    string(TOUPPER "HAVE_${f}" var)
    check_c_source_compiles("char ${f}(void);
int main(void) { return (int) ${f}(); }" SODIUM_${var})
    if(SODIUM_${var})
      set(SODIUM_DEFINITIONS ${SODIUM_DEFINITIONS} "${var}=1")
    endif()
  endforeach()
  set(SODIUM_DEFINITIONS ${SODIUM_DEFINITIONS} PARENT_SCOPE)
endfunction()

set(SODIUM_RANDOM_HEADERS "#include <stdlib.h>
#ifdef HAVE_UNISTD_H
# include <unistd.h>
#endif
#ifdef HAVE_SYS_RANDOM_H
# include <sys/random.h>
#endif
")
set(SODIUM_RANDOM_DEFS "")
if(SODIUM_HAVE_UNISTD_H)
  string(APPEND SODIUM_RANDOM_DEFS "#define HAVE_UNISTD_H 1\n")
endif()
if(SODIUM_HAVE_SYS_RANDOM_H)
  string(APPEND SODIUM_RANDOM_DEFS "#define HAVE_SYS_RANDOM_H 1\n")
endif()
if(NOT EMSCRIPTEN)
  sodium_check_funcs(arc4random arc4random_buf)
  sodium_check_funcs(mmap mlock madvise mprotect)
  check_c_source_compiles("${SODIUM_RANDOM_DEFS}${SODIUM_RANDOM_HEADERS}
int main(void) { unsigned char buf; (void) getrandom((void *) &buf, 1U, 0U); return 0; }" SODIUM_GETRANDOM_STD_API)
  if(SODIUM_GETRANDOM_STD_API)
    sodium_check_funcs(getrandom)
  endif()
  check_c_source_compiles("${SODIUM_RANDOM_DEFS}${SODIUM_RANDOM_HEADERS}
#ifdef __APPLE__
# error getentropy() is currently disabled on Apple operating systems
#endif
int main(void) { unsigned char buf; (void) getentropy((void *) &buf, 1U); return 0; }" SODIUM_GETENTROPY_STD_API)
  if(SODIUM_GETENTROPY_STD_API)
    sodium_check_funcs(getentropy)
  endif()
endif()
sodium_check_funcs(posix_memalign getpid nanosleep)
sodium_check_funcs(memset_s explicit_bzero explicit_memset)

sodium_define(CONFIGURED)
