// Random extents and arrays of random data for the copy tests: the
// library's amp.data.h. The library declares these function templates in
// Concurrency::Test; the tests call them with explicit template arguments
// (`CreateRandomExtent<2>(5)`), which the language finds only at file
// scope yet, so they are declared there.
#pragma once

#include <cstdlib>
#include <iostream>
#include <vector>
#include <amp.h>
#include <amptest/logging.h>
#include <amptest/operators.h>
#include <amptest/data.h>

// A random index inside the extent `ex` placed at `origin`.
template <int rank>
concurrency::index<rank> GetRandomIndex(concurrency::index<rank>& origin, concurrency::extent<rank>& ex) {
    concurrency::index<rank> idx;
    for (int i = 0; i < rank; i++) {
        idx[i] = origin[i] + rand() % ex[i];
    }
    return idx;
}

// An extent whose every dimension is from 1 to `max_range`.
template <int rank>
concurrency::extent<rank> CreateRandomExtent(int max_range) {
    concurrency::extent<rank> ext;
    for (int i = 0; i < rank; i++) {
        ext[i] = 1 + rand() % max_range;
    }
    return ext;
}

// A staging array (its data on `cpu_av`, meant for `gpu_av`) of a random
// extent, filled with random values.
template <typename T, int rank>
concurrency::array<T, rank> CreateStagingArrayAndFillData(const concurrency::accelerator_view& cpu_av,
                                                          const concurrency::accelerator_view& gpu_av,
                                                          int extent_range) {
    concurrency::extent<rank> arr_extent = CreateRandomExtent<rank>(extent_range);
    std::vector<T> cont(arr_extent.size());
    Fill<T>(cont);
    concurrency::array<T, rank> src_arr(arr_extent, cont.begin(), cpu_av, gpu_av);
    std::cout << "Created staging array of " << src_arr.get_extent() << std::endl;
    return src_arr;
}

// An array on `src_av` of a random extent, filled with random values.
template <typename T, int rank>
concurrency::array<T, rank> CreateArrayAndFillData(const concurrency::accelerator_view& src_av, int extent_range,
                                                   concurrency::access_type cpu_access_type = concurrency::access_type_auto) {
    concurrency::extent<rank> arr_extent = CreateRandomExtent<rank>(extent_range);
    std::vector<T> cont(arr_extent.size());
    Fill<T>(cont);
    concurrency::array<T, rank> src_arr(arr_extent, cont.begin(), src_av, cpu_access_type);
    std::cout << "Created array of " << src_arr.get_extent() << std::endl;
    return src_arr;
}

// A view of the array's elements from a random origin to its end: its rows
// are not contiguous in the array (unless it is of rank 1).
template <typename T, int rank>
concurrency::array_view<T, rank> CreateNonContiguousArrayView(concurrency::array<T, rank>& data_src_arr) {
    std::cout << "Data source array is of " << data_src_arr.get_extent() << std::endl;
    concurrency::index<rank> idx;
    for (int i = 0; i < rank; i++) {
        idx[i] = data_src_arr.get_extent()[i] - (1 + rand() % data_src_arr.get_extent()[i]);
    }
    concurrency::array_view<T, rank> non_contig_arr_v = data_src_arr.section(idx);
    std::cout << "Created non-contiguous array view of " << non_contig_arr_v.get_extent() << std::endl;
    return non_contig_arr_v;
}

template <typename T, int rank>
concurrency::array_view<const T, rank> CreateNonContiguousArrayViewWithConstType(concurrency::array<T, rank>& data_src_arr) {
    std::cout << "Data source array is of " << data_src_arr.get_extent();
    concurrency::index<rank> idx;
    for (int i = 0; i < rank; i++) {
        idx[i] = data_src_arr.get_extent()[i] - (1 + rand() % data_src_arr.get_extent()[i]);
    }
    concurrency::array_view<const T, rank> non_contig_arr_v = data_src_arr.section(idx);
    std::cout << "Created non-contiguous array view with const type of " << non_contig_arr_v.get_extent() << std::endl;
    return non_contig_arr_v;
}
