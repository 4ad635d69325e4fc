/* Shared by the kernel and the programs. The CMake tests edit CONSUMER_BLOCK after a first build
   and check that tlc runs again and that the new value reaches the launcher library (the
   kernel's __launch_bounds__, recorded in consumer_kernels.json). Keep the #define on one line. */
#ifndef CONSUMER_PARAMS_H
#define CONSUMER_PARAMS_H

#define CONSUMER_BLOCK 128

#endif
