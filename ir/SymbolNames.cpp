#include "ir/SymbolNames.h"

#include <set>
#include <sstream>

namespace texc {

namespace {

std::set<std::string> words(std::initializer_list<const char*> lists) {
  std::set<std::string> out;
  for (const char* list : lists) {
    std::istringstream is(list);
    std::string w;
    while (is >> w) out.insert(w);
  }
  return out;
}

const std::set<std::string>& c_keywords() {
  static const std::set<std::string> set = words({
      // C23 (the _Upper ones are reserved names anyway)
      "auto break case char const continue default do double else enum extern float for goto if inline int long "
      "register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while "
      "alignas alignof bool constexpr false nullptr static_assert thread_local true typeof typeof_unqual",
      // C++20 (the header is included from C++ too)
      "and and_eq asm bitand bitor catch char8_t char16_t char32_t class compl concept consteval constinit "
      "const_cast co_await co_return co_yield decltype delete dynamic_cast explicit export friend mutable namespace "
      "new noexcept not not_eq operator or or_eq private protected public reinterpret_cast requires static_cast "
      "template this throw try typeid typename using virtual wchar_t xor xor_eq",
  });
  return set;
}

// Macros of the C standard library that a program including the header may have defined.
const std::set<std::string>& c_macros() {
  static const std::set<std::string> set = words({
      "NULL EOF BUFSIZ FILENAME_MAX assert errno offsetof stdin stdout stderr va_start va_end va_arg va_copy "
      "setjmp INFINITY NAN HUGE_VAL HUGE_VALF HUGE_VALL EXIT_SUCCESS EXIT_FAILURE RAND_MAX CHAR_BIT SIZE_MAX "
      "fpclassify isfinite isinf isnan isnormal signbit isgreater isgreaterequal isless islessequal "
      "islessgreater isunordered complex imaginary noreturn",
  });
  return set;
}

// Functions of the C standard library, the math library (each with its f and l variants) and the
// POSIX functions texc's runtime and common programs link against.
const std::set<std::string>& c_library_functions() {
  static const std::set<std::string> set = [] {
    std::set<std::string> s = words({
        // stdlib.h
        "abort abs atexit at_quick_exit atof atoi atol atoll bsearch calloc div exit labs ldiv llabs lldiv malloc "
        "mblen mbstowcs mbtowc qsort quick_exit rand realloc srand strtod strtof strtol strtold strtoll strtoul "
        "strtoull system wcstombs wctomb aligned_alloc posix_memalign memalign valloc free getenv setenv unsetenv",
        // string.h
        "memchr memcmp memcpy memmove memset memccpy strcat strchr strcmp strcoll strcpy strcspn strerror strlen "
        "strncat strncmp strncpy strpbrk strrchr strspn strstr strtok strxfrm strdup strndup strnlen",
        // stdio.h
        "clearerr fclose feof ferror fflush fgetc fgetpos fgets fopen fprintf fputc fputs fread freopen fscanf "
        "fseek fsetpos ftell fwrite getc getchar gets perror printf putc putchar puts remove rename rewind scanf "
        "setbuf setvbuf snprintf sprintf sscanf tmpfile tmpnam ungetc vfprintf vfscanf vprintf vscanf vsnprintf "
        "vsprintf vsscanf fileno popen pclose getline dprintf",
        // ctype.h, time.h, signal.h, setjmp.h, locale.h
        "isalnum isalpha isblank iscntrl isdigit isgraph islower isprint ispunct isspace isupper isxdigit tolower "
        "toupper asctime clock ctime difftime gmtime localtime mktime strftime time timespec_get nanosleep raise "
        "signal longjmp localeconv setlocale",
        // POSIX
        "open close read write lseek fork execv execve execvp pipe dup dup2 unlink sleep usleep getpid kill wait "
        "waitpid mmap munmap mprotect stat fstat lstat access chdir getcwd mkdir rmdir select poll socket connect "
        "bind listen accept send recv ioctl fcntl sysconf isatty sync environ dlopen dlsym dlclose dlerror dladdr "
        "sched_yield sched_getcpu sched_getaffinity sched_setaffinity",
    });
    // math.h (C99 and GNU), each as double, float and long double
    std::set<std::string> math = words({
        "acos asin atan atan2 cos sin tan acosh asinh atanh cosh sinh tanh exp exp2 exp10 expm1 frexp ilogb ldexp "
        "log log10 log1p log2 logb modf scalbn scalbln cbrt fabs hypot pow pow10 sqrt erf erfc lgamma tgamma gamma "
        "ceil floor nearbyint rint lrint llrint round lround llround trunc fmod remainder remquo copysign nan "
        "nextafter nexttoward fdim fmax fmin fma sincos significand drem j0 j1 jn y0 y1 yn",
    });
    for (const std::string& m : math) {
      s.insert(m);
      s.insert(m + "f");
      s.insert(m + "l");
    }
    return s;
  }();
  return set;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool ends_with(const std::string& s, const char* suffix) {
  const std::string x(suffix);
  return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

}  // namespace

std::string reserved_symbol_reason(const std::string& name) {
  if (c_keywords().count(name)) return "a C or C++ keyword";
  if (starts_with(name, "_")) return "reserved to the C implementation (a leading underscore)";
  if (starts_with(name, "texrt_")) return "a prefix of texc's runtime library (texrt_)";
  if (starts_with(name, "texc_")) return "a prefix of texc's own symbols (texc_)";
  if (name == "main") return "the entry point of a C program";
  if (c_library_functions().count(name)) return "a C library function";
  if (c_macros().count(name)) return "a macro of the C library";
  if (starts_with(name, "pthread_")) return "a prefix of the POSIX threads library (pthread_)";
  if (ends_with(name, "_t")) return "reserved to type names by POSIX (an _t suffix)";
  if ((starts_with(name, "INT") || starts_with(name, "UINT")) &&
      (ends_with(name, "_MAX") || ends_with(name, "_MIN") || ends_with(name, "_C")))
    return "a macro of <stdint.h>";
  if (name == "WARP_SZ") return "a predefined identifier of PTX";
  return "";
}

std::string op_symbol(const std::string& name) {
  return reserved_symbol_reason(name).empty() ? name : "texc_op_" + name;
}

std::string c_parameter_name(const std::string& name) {
  return c_keywords().count(name) || c_macros().count(name) ? name + "_" : name;
}

}  // namespace texc
