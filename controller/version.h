#ifndef TIERD_VERSION_H
#define TIERD_VERSION_H
#define TIERD_VERSION "0.1.0"
#endif
