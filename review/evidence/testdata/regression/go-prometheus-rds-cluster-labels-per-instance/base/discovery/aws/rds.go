package aws

import (
	"maps"
	"strconv"
)

// LabelSet is a set of target labels.
type LabelSet map[string]string

// DBCluster is an RDS cluster as the API describes it.
type DBCluster struct {
	DBClusterArn        *string
	DBClusterIdentifier *string
	Engine              *string
	EngineVersion       *string
	AllocatedStorage    *int32
	MultiAZ             *bool
	Port                *int32
	Tags                map[string]string
}

// DBInstance is an RDS instance of a cluster.
type DBInstance struct {
	DBInstanceIdentifier *string
	Endpoint             *string
	Port                 int32
}

func clusterLabels(cluster DBCluster, labels LabelSet) {
	if cluster.DBClusterArn != nil {
		labels["__meta_rds_cluster_arn"] = *cluster.DBClusterArn
	}
	if cluster.DBClusterIdentifier != nil {
		labels["__meta_rds_cluster_identifier"] = *cluster.DBClusterIdentifier
	}
	if cluster.Engine != nil {
		labels["__meta_rds_cluster_engine"] = *cluster.Engine
	}
	if cluster.EngineVersion != nil {
		labels["__meta_rds_cluster_engine_version"] = *cluster.EngineVersion
	}
	if cluster.AllocatedStorage != nil {
		labels["__meta_rds_cluster_allocated_storage"] = strconv.Itoa(int(*cluster.AllocatedStorage))
	}
	if cluster.MultiAZ != nil {
		labels["__meta_rds_cluster_multi_az"] = strconv.FormatBool(*cluster.MultiAZ)
	}
	if cluster.Port != nil {
		labels["__meta_rds_cluster_port"] = strconv.Itoa(int(*cluster.Port))
	}
	for k, v := range cluster.Tags {
		labels["__meta_rds_cluster_tag_"+k] = v
	}
}

// targets returns one label set per instance of each cluster.
func targets(clusters []DBCluster, instances map[string][]DBInstance) []LabelSet {
	var out []LabelSet
	for _, cluster := range clusters {
		// Cluster labels are the same for every instance of the cluster, so build them
		// once and copy them into each target below.
		commonLabels := LabelSet{}
		clusterLabels(cluster, commonLabels)
		for _, instance := range instances[*cluster.DBClusterIdentifier] {
			labels := make(LabelSet, len(commonLabels)+2)
			maps.Copy(labels, commonLabels)
			if instance.DBInstanceIdentifier != nil {
				labels["__meta_rds_instance_identifier"] = *instance.DBInstanceIdentifier
			}
			if instance.Endpoint != nil {
				labels["__address__"] = *instance.Endpoint + ":" + strconv.Itoa(int(instance.Port))
			}
			out = append(out, labels)
		}
	}
	return out
}
