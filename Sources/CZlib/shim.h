// The system zlib: Core Data keeps its compiled model in Z_MODELCACHE as raw DEFLATE.
#include <zlib.h>
