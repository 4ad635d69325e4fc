/* The wheel's tlc runs on glibc 2.34 and newer (manylinux_2_34): Debian 12's libstdc++ and LLVM,
 * linked in statically, call arc4random, which glibc has only since 2.36. This definition, in the
 * executable, is the one their calls bind to; it draws from the kernel as glibc's does. Only the
 * wheel's build compiles it (tools/tlc/CMakeLists.txt). */
#include <errno.h>
#include <stdint.h>
#include <sys/random.h>

uint32_t arc4random(void) {
  uint32_t value = 0;
  unsigned char* bytes = (unsigned char*)&value;
  size_t done = 0;
  while (done < sizeof value) {
    ssize_t got = getrandom(bytes + done, sizeof value - done, 0);
    if (got > 0)
      done += (size_t)got;
    else if (got < 0 && errno != EINTR)
      break; /* no getrandom (a kernel older than 3.17): what was drawn so far */
  }
  return value;
}
