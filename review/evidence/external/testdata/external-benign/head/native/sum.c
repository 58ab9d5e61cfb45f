#include <stddef.h>

int sum(const int *v, int n) {
    int s = 0;
    for (int i = 0; i < n; i++) {
        s += v[i];
    }
    return s;
}

int max(const int *v, size_t n) {
    if (v == NULL || n == 0) {
        return 0;
    }
    int m = v[0];
    for (size_t i = 1; i < n; i++) {
        if (v[i] > m) {
            m = v[i];
        }
    }
    return m;
}
